/**
 * One `/metrics` for all the workers of `resc serve --workers N`. Each
 * worker counts what it serves in its own registry; a scrape reaches one
 * worker, which asks the primary, which gathers every worker's registry
 * with prom-client's AggregatorRegistry (counters and histograms summed,
 * pool gauges summed) and answers with the whole service's figures
 * (docs/decisions/1300-workers.md).
 */
import type { Cluster } from "node:cluster";
import { AggregatorRegistry, type Registry } from "prom-client";

const ASK = "resc:cluster-metrics";
const ANSWER = "resc:cluster-metrics-answer";

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  error?: string;
}

/** In the primary: answers every worker's request for the aggregated metrics. */
export function answerClusterMetrics(cluster: Cluster): void {
  const aggregator = new AggregatorRegistry();
  cluster.on("message", (worker, message: Ask) => {
    if (message?.type !== ASK) return;
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: ANSWER, id: message.id, text } satisfies Answer),
      (e: Error) => worker.send({ type: ANSWER, id: message.id, error: e.message } satisfies Answer),
    );
  });
}

/**
 * In a worker: offers `local` to the primary's aggregation and returns the
 * function a scrape calls for the whole service's metrics text.
 * @returns rejects when the primary does not answer within 5 s or its aggregation failed
 */
export function clusterMetricsText(local: Registry): () => Promise<string> {
  new AggregatorRegistry(); // registers this worker's answer to the primary's gathering
  AggregatorRegistry.setRegistries([local]);
  let next = 0;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        process.off("message", onMessage);
        reject(new Error("the primary process did not answer with the cluster's metrics"));
      }, 5000);
      const onMessage = (m: Answer): void => {
        if (m?.type !== ANSWER || m.id !== id) return;
        clearTimeout(timer);
        process.off("message", onMessage);
        if (m.text !== undefined) resolve(m.text);
        else reject(new Error(m.error ?? "no metrics"));
      };
      process.on("message", onMessage);
      process.send!({ type: ASK, id } satisfies Ask);
    });
}
