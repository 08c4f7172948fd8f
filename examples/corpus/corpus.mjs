// WordNet corpus for the REIS tests, benchmarks and the RAG demo.
//
//   node corpus.mjs extract OUTDIR N|all  parse WordNet, pick rows and queries,
//                                      write the text files (docs/corpus.md)
//   node corpus.mjs manifest OUTDIR    merge the stage reports into manifest.json
//
// Steps of `extract`:
//   1. read data.{noun,verb,adj,adv} in that order; each synset line is one
//      passage, its gid is its position in that order;
//   2. split each gloss into the definition part and its quoted examples;
//   3. shuffle the gids with a fixed seed: row r holds gid perm[r], so any
//      subset of N rows is a prefix of the full corpus (same rows, same ids);
//   4. examples that occur in exactly one gloss become queries whose answer
//      is that gloss; a seeded shuffle picks the evaluation and calibration
//      queries among those whose answer row is < N.
import fs from "node:fs";
import path from "node:path";

const WORDNET_DIR = process.env.WORDNET_DIR || "/usr/share/wordnet";
const POS_FILES = ["noun", "verb", "adj", "adv"];
const SEED_ROWS = "isp-ssd corpus rows v1";
const SEED_QUERIES = "isp-ssd corpus queries v1";
const N_EVAL = 2000;
const N_CALIB = 500;
const MIN_QUERY_WORDS = 3;

// FNV-1a folds a seed string into the 32-bit PRNG state.
function seedOf(str) {
    let h = 0x811c9dc5;
    for (let i = 0; i < str.length; i++) {
        h ^= str.charCodeAt(i);
        h = Math.imul(h, 0x01000193) >>> 0;
    }
    return h;
}

// mulberry32: small, well-mixed, and identical on every JS engine.
function rng(seed) {
    let a = seed >>> 0;
    return () => {
        a = (a + 0x6d2b79f5) >>> 0;
        let t = a;
        t = Math.imul(t ^ (t >>> 15), t | 1);
        t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
}

function shuffle(arr, seedStr) {
    const r = rng(seedOf(seedStr));
    for (let i = arr.length - 1; i > 0; i--) {
        const j = Math.floor(r() * (i + 1));
        const t = arr[i]; arr[i] = arr[j]; arr[j] = t;
    }
    return arr;
}

function squash(s) {
    return s.replace(/\s+/g, " ").trim();
}

// Definition = gloss without its quoted examples; a gloss with an odd number
// of quotes (a few typos in WordNet) loses everything after the stray quote
// and gives no queries, since its example boundaries are unknowable.
function splitGloss(gloss) {
    const nq = (gloss.match(/"/g) || []).length;
    const examples = [];
    let def = gloss;
    if (nq % 2 === 0) {
        for (const m of gloss.matchAll(/"([^"]*)"/g)) {
            const ex = squash(m[1]);
            if (ex) examples.push(ex);
        }
        def = gloss.replace(/"[^"]*"/g, " ");
    } else {
        def = gloss.slice(0, gloss.indexOf('"'));
    }
    def = squash(def)
        .replace(/(\s*;\s*)+/g, "; ")
        .replace(/^[;:,\s]+|[;:,\s]+$/g, "");
    return { def, examples };
}

function parseWordnet() {
    const out = [];
    for (const pos of POS_FILES) {
        const text = fs.readFileSync(path.join(WORDNET_DIR, "data." + pos), "latin1");
        for (const line of text.split("\n")) {
            if (line === "" || line.startsWith("  ")) continue; // license header
            const bar = line.indexOf(" | ");
            if (bar < 0) throw new Error(`data.${pos}: no gloss in: ${line.slice(0, 60)}`);
            const f = line.slice(0, bar).split(" ");
            const wcnt = parseInt(f[3], 16);
            const lemmas = [];
            for (let i = 0; i < wcnt; i++) {
                // Adjective markers "(a)", "(p)", "(ip)" are syntax, not words.
                lemmas.push(f[4 + 2 * i].replace(/\((a|p|ip)\)$/, "").replace(/_/g, " "));
            }
            const gloss = squash(line.slice(bar + 3));
            out.push({ gid: out.length, pos: f[2], offset: f[0], lemmas, gloss, ...splitGloss(gloss) });
        }
    }
    return out;
}

// What the encoder sees for a passage: head words, then the definition.
// The examples are left out on purpose: they are the queries.
function embedText(p) {
    return p.def ? `${p.lemmas.join(", ")}: ${p.def}` : p.lemmas.join(", ");
}

function writeIvecs1(file, values) {
    const b = Buffer.alloc(values.length * 8);
    values.forEach((v, i) => { b.writeInt32LE(1, 8 * i); b.writeInt32LE(v, 8 * i + 4); });
    fs.writeFileSync(file, b);
}

function lines(arr) {
    return arr.length ? arr.join("\n") + "\n" : "";
}

function extract(outDir, nArg) {
    const t0 = performance.now();
    const all = parseWordnet();
    const total = all.length;
    const n = nArg === "all" ? total : Number(nArg);
    if (!(Number.isInteger(n) && n >= 1 && n <= total)) throw new Error(`N must be 1..${total} or "all", got ${nArg}`);
    const perm = shuffle(all.map((p) => p.gid), SEED_ROWS);
    const rowOfGid = new Int32Array(total);
    perm.forEach((gid, row) => { rowOfGid[gid] = row; });
    const rows = perm.slice(0, n).map((gid) => all[gid]);

    // docs.bin + docs.idx: gloss bytes and n+1 little-endian u64 offsets.
    const docs = rows.map((p) => Buffer.from(p.gloss, "latin1"));
    const idx = Buffer.alloc((n + 1) * 8);
    let off = 0n;
    docs.forEach((d, i) => { idx.writeBigUInt64LE(off, 8 * i); off += BigInt(d.length); });
    idx.writeBigUInt64LE(off, 8 * n);
    fs.writeFileSync(path.join(outDir, "docs.bin"), Buffer.concat(docs));
    fs.writeFileSync(path.join(outDir, "docs.idx"), idx);
    fs.writeFileSync(path.join(outDir, "lemmas.txt"), lines(rows.map((p) => p.lemmas.join(", "))));
    fs.writeFileSync(path.join(outDir, "passages.tsv"),
        lines(rows.map((p, r) => [r, p.gid, p.pos, p.offset, p.lemmas.join(", ")].join("\t"))));
    fs.writeFileSync(path.join(outDir, "passages.embed.txt"), lines(rows.map(embedText)));

    // Queries: an example repeated in several glosses has no single answer.
    const seen = new Map();
    let nExamples = 0, nShort = 0;
    for (const p of all) {
        for (const ex of new Set(p.examples)) {
            nExamples++;
            if (ex.split(" ").length < MIN_QUERY_WORDS) { nShort++; continue; }
            const prev = seen.get(ex);
            seen.set(ex, prev === undefined ? p.gid : -1);
        }
    }
    const cands = [...seen].filter(([, gid]) => gid >= 0);
    const nUnique = cands.length;
    shuffle(cands, SEED_QUERIES);
    const inSubset = cands.filter(([, gid]) => rowOfGid[gid] < n);
    const evalQ = inSubset.slice(0, N_EVAL);
    const calibQ = inSubset.slice(N_EVAL, N_EVAL + N_CALIB);
    for (const [name, qs] of [["queries", evalQ], ["calib", calibQ]]) {
        fs.writeFileSync(path.join(outDir, name + ".txt"), lines(qs.map(([t]) => t)));
        writeIvecs1(path.join(outDir, name + "_gt.ivecs"), qs.map(([, gid]) => rowOfGid[gid]));
    }

    const report = {
        wordnet_dir: WORDNET_DIR,
        passages_total: total,
        passages: n,
        passages_by_pos: Object.fromEntries(["n", "v", "a", "s", "r"].map((c) =>
            [c, rows.filter((p) => p.pos === c).length])),
        passages_without_definition: rows.filter((p) => !p.def).length,
        examples_total: nExamples,
        examples_too_short: nShort,
        queries_unique_total: nUnique,
        queries_answer_in_subset: inSubset.length,
        queries: evalQ.length,
        calib_queries: calibQ.length,
        seeds: { rows: SEED_ROWS, queries: SEED_QUERIES },
        min_query_words: MIN_QUERY_WORDS,
        docs_bytes: Number(off),
        extract_seconds: +((performance.now() - t0) / 1000).toFixed(2),
    };
    fs.writeFileSync(path.join(outDir, "extract.json"), JSON.stringify(report, null, 1) + "\n");
}

function readJson(file) {
    return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : undefined;
}

function manifest(outDir) {
    const m = {
        format: "isp-ssd-corpus/1",
        created_by: "scripts/corpus.sh",
        key: process.env.CORPUS_KEY,
        key_inputs: process.env.CORPUS_KEY_INPUTS ? process.env.CORPUS_KEY_INPUTS.split(" ") : undefined,
        dim: 512,
        metric: "inner product (vectors are unit length, so cosine)",
        model: "Universal Sentence Encoder lite via @energetic-ai/{core,embeddings,model-embeddings-en}",
        node: process.version,
        timings_seconds: process.env.CORPUS_TIMINGS ? JSON.parse(process.env.CORPUS_TIMINGS) : undefined,
        extract: readJson(path.join(outDir, "extract.json")),
        embed: readJson(path.join(outDir, "embed.json")),
        gt_queries: readJson(path.join(outDir, "gt_queries.json")),
        gt_calib: readJson(path.join(outDir, "gt_calib.json")),
        files: {},
    };
    for (const f of fs.readdirSync(outDir).sort()) {
        if (f === "manifest.json") continue;
        m.files[f] = fs.statSync(path.join(outDir, f)).size;
    }
    fs.writeFileSync(path.join(outDir, "manifest.json"), JSON.stringify(m, null, 1) + "\n");
}

const [cmd, outDir, nArg] = process.argv.slice(2);
if (cmd === "extract" && outDir && nArg) {
    extract(outDir, nArg);
} else if (cmd === "manifest" && outDir) {
    manifest(outDir);
} else {
    console.error("usage: node corpus.mjs extract OUTDIR N | manifest OUTDIR");
    process.exit(2);
}
