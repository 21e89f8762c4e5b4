/**
 * Where the running resc came from, so the project `resc init` writes can
 * depend on the same package: a registry install gets `^version`; a
 * tarball (`npm pack`, `npm install ./resc-x.tgz`, `npx ./resc-x.tgz`) gets
 * `file:` that tarball; a checkout gets `file:` the checkout. Without this
 * a project made from anything but the registry asked for `^0.1.0` and
 * `npm install` failed (docs/decisions/1242-init.md).
 */
import { readFile } from "node:fs/promises";
import path from "node:path";

/** The dependency specifier for resc, and a sentence saying where it points. */
export interface RescSource {
  spec: string;
  from: string;
}

interface HiddenLockfile {
  packages?: Record<string, { resolved?: string; version?: string }>;
}

/**
 * The specifier for the resc whose package root is `root` (the folder of its package.json), at `version`.
 * Reads npm's hidden lockfile (`node_modules/.package-lock.json`) of the install that holds it.
 */
export async function rescSource(root: string, version: string): Promise<RescSource> {
  const parts = path.resolve(root).split(path.sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return { spec: `file:${path.resolve(root)}`, from: `the resc checkout in ${path.resolve(root)}` };
  const modules = parts.slice(0, at + 1).join(path.sep);
  const prefix = path.dirname(modules);
  const key = path.relative(prefix, root).split(path.sep).join("/");
  const lock = await readFile(path.join(modules, ".package-lock.json"), "utf8")
    .then((t) => JSON.parse(t) as HiddenLockfile)
    .catch(() => undefined);
  const resolved = lock?.packages?.[key]?.resolved;
  if (resolved?.startsWith("file:")) {
    const target = path.resolve(prefix, resolved.slice("file:".length));
    return { spec: `file:${target}`, from: `the resc package ${target}` };
  }
  return { spec: `^${version}`, from: `resc ${version} from the npm registry` };
}
