/** One file a backend produces: a path relative to the output root (`/`-separated) and its full text. */
export interface GeneratedFile {
  path: string;
  contents: string;
}
