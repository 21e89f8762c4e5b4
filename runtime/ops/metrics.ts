/**
 * Prometheus metrics of a service (docs/deploy.md), from prom-client:
 * request counts and latency by route template and status, the pool's
 * size, idle and waiting clients, and database faults by kind.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** The pool figures a metric reads at scrape time (pg-pool's counters). */
export interface PoolFigures {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** A service's metrics. */
export interface ServiceMetrics {
  readonly registry: Registry;
  /** Records one answered request; `seconds` from its arrival to its answer. */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Records one database fault answered with a 5xx, by problem kind (`database-unavailable`, `lock-timeout`, …). */
  databaseError(kind: string): void;
}

/**
 * Creates the metrics, each registered on a registry of their own (so two
 * services in one process do not collide).
 * @param pool read at each scrape, when the service runs on a pool
 */
export function createMetrics(pool?: PoolFigures): ServiceMetrics {
  const registry = new Registry();
  const requests = new Counter({
    name: "resc_http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    registers: [registry],
  });
  const latency = new Histogram({
    name: "resc_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method, route template and status.",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const faults = new Counter({
    name: "resc_database_errors_total",
    help: "Database faults answered with a 5xx, by problem kind.",
    labelNames: ["kind"],
    registers: [registry],
  });
  if (pool) {
    const gauge = (name: string, help: string, read: () => number): void => {
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    };
    gauge("resc_pool_connections", "Connections the pool holds.", () => pool.totalCount);
    gauge("resc_pool_idle_connections", "Connections the pool holds that no request uses.", () => pool.idleCount);
    gauge("resc_pool_waiting_requests", "Requests waiting for a pool connection.", () => pool.waitingCount);
  }
  return {
    registry,
    request(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    databaseError(kind) {
      faults.inc({ kind });
    },
  };
}
