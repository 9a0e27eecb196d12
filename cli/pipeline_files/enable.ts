/**
 * `toolkit enable`: adds a pipeline's files (Jenkinsfile, chart, Dockerfile…) to the repository in
 * `--dir` (default the current directory), from a pipelines repository's `index.yaml`
 * (`version: v2`, `branches.<branch>.<pipeline>[]` of `{url, name, version}`).
 *
 * - The index is read whatever content type the server sends (igc failed on a non-text one); an
 *   unknown branch, pipeline or version says which exist (igc's list was always empty).
 * - A git working tree with uncommitted changes is refused unless `--force` (the docs always
 *   asked for a clean tree; igc never checked).
 * - The tarball is downloaded with progress on stderr and read completely before
 *   anything is written (igc's race copied nothing on fast servers; gunzip by the web
 *   `DecompressionStream`, tar by tar-stream); entries that would escape the
 *   directory (`..`, absolute paths), links and devices are refused, and then nothing is written.
 * - A file that exists with other content is overwritten after a confirmation on a terminal, or
 *   with `--force`; without either, nothing is written and the command says which files differ.
 * - What was added, changed and left unchanged is printed (`-o json`); every error exits 1 (igc
 *   exited 0).
 *
 * @module
 */
import { networkFetch } from "../network.ts";
import type { FetchFunction } from "../../lib/fetch.ts";
import tar from "tar-stream";
import { parse } from "yaml";
import type { CommandContext } from "../command.ts";
import type { OptionsOf } from "../options.ts";
import type { ENABLE } from "./enable_command.ts";
import { ToolkitError, UsageError } from "../../lib/errors.ts";
import { writeFilesSafely } from "../../lib/file_write.ts";
import { runGit } from "../../lib/githost/mod.ts";
import { makeLogger, resolveDir } from "../dev/common.ts";

/** A pipeline release in the index. */
interface IndexEntry {
  url?: string;
  name?: string;
  version?: string;
}

/** The index could not be read, or has no such pipeline. */
export class PipelineIndexError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PipelineIndexError";
  }
}

/** The tarball is hostile or broken. */
export class UnsafeArchiveError extends ToolkitError {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "UnsafeArchiveError";
  }
}

async function fetchBytes(
  fetcher: FetchFunction,
  url: string,
  what: string,
  maxBytes: number,
  progress?: (done: number, total: number | undefined) => void,
): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new PipelineIndexError(
      `Cannot download ${what} from ${url}: ${error instanceof Error ? error.message : error}`,
      { cause: error },
    );
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new PipelineIndexError(`Cannot download ${what} from ${url}: HTTP ${response.status}`);
  }
  const total = Number(response.headers.get("content-length")) || undefined;
  if (total !== undefined && total > maxBytes) {
    await response.body?.cancel();
    throw new PipelineIndexError(
      `Cannot download ${what} from ${url}: it is ${total} bytes, more than the ${maxBytes} taken`,
    );
  }
  try {
    return await readBounded(
      response.body ?? new Blob([]).stream(),
      maxBytes,
      () =>
        new PipelineIndexError(
          `Cannot download ${what} from ${url}: it is more than the ${maxBytes} bytes taken`,
        ),
      (done) => progress?.(done, total),
    );
  } catch (error) {
    if (error instanceof PipelineIndexError) throw error;
    throw new PipelineIndexError(
      `Cannot download ${what} from ${url}: ${error instanceof Error ? error.message : error}`,
      { cause: error },
    );
  }
}

/** The entry of the index for branch, pipeline and release (every mistake says what exists). */
export function pickRelease(
  index: unknown,
  branch: string,
  pipeline: string,
  release: string,
): IndexEntry & { url: string } {
  const doc = index as {
    version?: unknown;
    branches?: Record<string, Record<string, IndexEntry[]>>;
  };
  if (doc?.version !== "v2") {
    throw new PipelineIndexError(
      `The pipeline index has version ${
        JSON.stringify(doc?.version ?? null)
      }; toolkit reads version v2`,
    );
  }
  const branches = doc.branches ?? {};
  const pipelines = branches[branch];
  if (!pipelines || Object.keys(pipelines).length === 0) {
    throw new PipelineIndexError(
      `The index has no pipelines for branch "${branch}": its branches are ${
        Object.keys(branches).join(", ") || "none"
      } (-b)`,
    );
  }
  const releases = pipelines[pipeline];
  if (!releases) {
    throw new PipelineIndexError(
      `Branch "${branch}" has no pipeline "${pipeline}": it has ${
        Object.keys(pipelines).join(", ")
      } (-p)`,
    );
  }
  const entry = releases.find((r) => r.version === release);
  if (!entry?.url) {
    throw new PipelineIndexError(
      `Pipeline ${branch}/${pipeline} has no release "${release}": it has ${
        releases.map((r) => r.version).join(", ")
      } (-r)`,
    );
  }
  return entry as IndexEntry & { url: string };
}

/** An entry of a tar archive, as it is in the archive. */
export interface TarEntry {
  readonly name: string;
  /** tar-stream's type: `file`, `directory`, `symlink`, `link`, `character-device`, … */
  readonly type: string;
  readonly linkname?: string | null;
  readonly mode: number;
  readonly data: Uint8Array;
}

/** The largest pipeline index downloaded. */
const MAX_INDEX_BYTES = 8 * 1024 * 1024;
/** The largest pipeline archive downloaded. */
const MAX_DOWNLOAD_BYTES = 64 * 1024 * 1024;

/** How much of an archive `enable` unpacks (pipeline archives are a few KiB). */
export interface ArchiveLimits {
  /** The most bytes of the unpacked tar stream. @default 64 MiB */
  readonly maxBytes?: number;
  /** The most entries. @default 10,000 */
  readonly maxEntries?: number;
}

const DEFAULT_ARCHIVE_BYTES = 64 * 1024 * 1024;
const DEFAULT_ARCHIVE_ENTRIES = 10_000;

/** The bytes of `stream`, refused past `maxBytes` with `tooLarge()`. */
async function readBounded(
  stream: ReadableStream<Uint8Array>,
  maxBytes: number,
  tooLarge: () => Error,
  progress?: (done: number) => void,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let done = 0;
  for await (const chunk of stream) {
    done += chunk.length;
    if (done > maxBytes) {
      await stream.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(chunk);
    progress?.(done);
  }
  const bytes = new Uint8Array(done);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.length;
  }
  return bytes;
}

/**
 * Every entry of a gzipped tar archive, read completely, within `limits`: a small download that
 * unpacks to gigabytes (a "gzip bomb") is refused at the limit, not held in memory.
 */
export async function readTarGz(
  bytes: Uint8Array,
  limits: ArchiveLimits = {},
): Promise<TarEntry[]> {
  const maxBytes = limits.maxBytes ?? DEFAULT_ARCHIVE_BYTES;
  const maxEntries = limits.maxEntries ?? DEFAULT_ARCHIVE_ENTRIES;
  const raw = await readBounded(
    new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(
      new DecompressionStream("gzip"),
    ),
    maxBytes,
    () => new UnsafeArchiveError(`The archive unpacks to more than ${maxBytes} bytes`),
  );
  const entries: TarEntry[] = [];
  let tooMany = false;
  const extract = tar.extract();
  const done = new Promise<void>((resolve, reject) => {
    extract.on("finish", resolve);
    extract.on("error", reject);
  });
  extract.on("entry", (header, stream, next) => {
    if (entries.length >= maxEntries) {
      // Counted, not kept: the rest is skipped (its size is bounded by maxBytes already).
      tooMany = true;
      stream.on("end", next);
      stream.resume();
      return;
    }
    const chunks: Uint8Array[] = [];
    stream.on("data", (c: unknown) => void chunks.push(c as Uint8Array));
    stream.on("end", () => {
      const size = chunks.reduce((n, c) => n + c.length, 0);
      const data = new Uint8Array(size);
      let at = 0;
      for (const c of chunks) {
        data.set(c, at);
        at += c.length;
      }
      entries.push({
        name: header.name,
        type: header.type ?? "file",
        linkname: header.linkname ?? null,
        mode: header.mode ?? 0o644,
        data,
      });
      next();
    });
    stream.resume();
  });
  extract.end(raw);
  await done;
  if (tooMany) throw new UnsafeArchiveError(`The archive holds more than ${maxEntries} entries`);
  return entries;
}

/** The files of the archive, relative, every entry checked before any is used. */
export function safeEntries(
  entries: readonly TarEntry[],
): { path: string; data: Uint8Array; mode: number }[] {
  const files: { path: string; data: Uint8Array; mode: number }[] = [];
  for (const entry of entries) {
    const raw = entry.name;
    if (raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
      throw new UnsafeArchiveError(`The archive holds an absolute path: ${raw}`);
    }
    const parts = raw.split("/").filter((p) => p !== "" && p !== ".");
    if (parts.includes("..")) {
      throw new UnsafeArchiveError(`The archive holds a path out of the directory: ${raw}`);
    }
    if (entry.type === "directory" || parts.length === 0) continue;
    if (entry.type !== "file" && entry.type !== "contiguous-file") {
      throw new UnsafeArchiveError(
        `The archive holds a ${entry.type}${
          entry.linkname ? ` to ${entry.linkname}` : ""
        } (${raw}): only files and directories are taken`,
      );
    }
    if (parts.includes(".git")) {
      throw new UnsafeArchiveError(`The archive writes into .git: ${raw}`);
    }
    files.push({ path: parts.join("/"), data: entry.data, mode: entry.mode });
  }
  return files;
}

/** Refuses a path of the directory that is, or goes through, a symbolic link. */
async function refuseLinks(dir: string, path: string): Promise<void> {
  let at = dir;
  for (const part of path.split("/")) {
    at = `${at}/${part}`;
    const info = await Deno.lstat(at).catch(() => undefined);
    if (!info) return;
    if (info.isSymlink) {
      throw new UnsafeArchiveError(
        `Cannot write ${path}: ${
          at.slice(dir.length + 1)
        } is a symbolic link in the directory (nothing was written)`,
      );
    }
  }
}

async function readIfExists(path: string): Promise<Uint8Array | undefined> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return undefined;
    throw error;
  }
}

const same = (a: Uint8Array, b: Uint8Array) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Runs `enable`. */
export async function run(options: OptionsOf<typeof ENABLE>, ctx: CommandContext): Promise<number> {
  const { io } = ctx;
  const log = makeLogger(options, io);
  const dir = resolveDir(io, options.dir);
  try {
    if (!(await Deno.stat(dir)).isDirectory) {
      throw new UsageError(`--dir "${options.dir}" is not a directory`);
    }
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--dir "${options.dir ?? dir}" does not exist`);
  }
  if (!options.force && !options.dryRun) {
    let status: string | undefined;
    try {
      status = await runGit(ctx.processes, dir, ["status", "--porcelain"]);
    } catch {
      status = undefined; // not a git repository: nothing to protect
    }
    if (status) {
      throw new UsageError(
        `The working tree in "${dir}" has uncommitted changes: commit or stash them first, or pass --force`,
      );
    }
  }
  const base = options.repo.replace(/\/+$/, "");
  const fetcher = networkFetch(ctx, options);
  log.info(`Looking up pipelines from repository: ${base}`);
  const indexText = new TextDecoder().decode(
    await fetchBytes(fetcher, `${base}/index.yaml`, "the pipeline index", MAX_INDEX_BYTES),
  );
  let index: unknown;
  try {
    index = parse(indexText);
  } catch (error) {
    throw new PipelineIndexError(`The pipeline index of ${base} is not YAML`, { cause: error });
  }
  let pipeline = options.pipeline;
  if (!pipeline) {
    const names = Object.keys(
      (index as { branches?: Record<string, object> })?.branches?.[options.branch] ?? {},
    );
    if (names.length === 0) pickRelease(index, options.branch, "", options.release); // says why
    if (!io.interactive) {
      throw new UsageError(
        `Choose the pipeline with -p: ${names.join(", ")} (there is no terminal to ask on)`,
      );
    }
    pipeline = await ctx.terminal.askChoice(
      "Which pipeline should be enabled?",
      names.map((n) => ({ value: n, label: n })),
    );
  }
  const entry = pickRelease(index, options.branch, pipeline, options.release);
  const url = new URL(entry.url, `${base}/`).href;
  let last = 0;
  const archive = await fetchBytes(
    fetcher,
    url,
    `pipeline ${pipeline}`,
    MAX_DOWNLOAD_BYTES,
    (done, total) => {
      if (options.quiet || done - last < 65536) return;
      last = done;
      io.stderr.write(
        `  downloaded ${Math.round(done / 1024)} KiB${
          total ? ` of ${Math.round(total / 1024)} KiB` : ""
        }\r`,
      );
    },
  );
  if (!options.quiet && last > 0) io.stderr.write("\n");
  let items: TarEntry[];
  try {
    items = await readTarGz(archive);
  } catch (error) {
    throw new UnsafeArchiveError(
      `Cannot read the archive ${url}: ${error instanceof Error ? error.message : error}`,
    );
  }
  const files = safeEntries(items);

  const plan: {
    path: string;
    data: Uint8Array;
    mode: number;
    state: "added" | "changed" | "unchanged";
  }[] = [];
  for (const f of files) {
    const current = await readIfExists(`${dir}/${f.path}`);
    plan.push({
      ...f,
      state: current === undefined ? "added" : same(current, f.data) ? "unchanged" : "changed",
    });
  }
  const changed = plan.filter((p) => p.state === "changed");
  if (changed.length > 0 && !options.force && !options.dryRun) {
    if (!io.interactive) {
      throw new UsageError(
        `These files exist with other content: ${
          changed.map((c) => c.path).join(", ")
        }; pass --force to overwrite them (nothing was written)`,
      );
    }
    for (const c of changed) {
      if (
        !await ctx.terminal.askConfirm(
          `${c.path} already exists. Do you want to overwrite it?`,
          false,
        )
      ) {
        c.state = "unchanged";
        (c as { skipped?: boolean }).skipped = true;
      }
    }
  }
  if (!options.dryRun) {
    // Nothing is written through a symbolic link of the directory (it could lead out of it).
    for (const p of plan) {
      if (p.state !== "unchanged") await refuseLinks(dir, p.path);
    }
    const writes = plan.filter((p) => p.state !== "unchanged");
    for (const p of writes) {
      const target = `${dir}/${p.path}`;
      await Deno.mkdir(target.slice(0, target.lastIndexOf("/")), { recursive: true });
    }
    // Written beside and renamed (lib/file_write.ts), none renamed before all are written:
    // a failure leaves no half-written file and, before the renames, no file changed.
    await writeFilesSafely(writes.map((p) => ({
      path: `${dir}/${p.path}`,
      name: p.path,
      data: p.data,
      mode: p.mode & 0o777 || 0o644,
      exactMode: true,
    })));
  }
  const report = {
    repository: base,
    pipeline: `${options.branch}/${pipeline}@${options.release}`,
    version: entry.version,
    dryRun: options.dryRun,
    added: plan.filter((p) => p.state === "added").map((p) => p.path),
    changed: plan.filter((p) => p.state === "changed").map((p) => p.path),
    unchanged: plan.filter((p) => p.state === "unchanged").map((p) => p.path),
  };
  if (options.output === "json") {
    io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const lines = [
      `Pipeline ${report.pipeline} from ${base}${
        options.dryRun ? " (dry run: nothing written)" : ""
      }:`,
    ];
    for (
      const [what, list] of [["added", report.added], ["changed", report.changed], [
        "unchanged",
        report.unchanged,
      ]] as const
    ) {
      for (const p of list) lines.push(`  ${what.padEnd(9)} ${p}`);
    }
    if (report.added.length + report.changed.length === 0) {
      lines.push("  No files were changed in your repo");
    } else if (!options.dryRun) lines.push("Don't forget to commit the new files");
    io.stdout.write(`${lines.join("\n")}\n`);
  }
  return 0;
}
