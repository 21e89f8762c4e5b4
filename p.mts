import { formatSource as format } from "./grammar/format/index.js";
import { readFileSync } from "node:fs";
const src = readFileSync(process.argv[2], "utf8");
console.log(format(src, process.argv[2]));
