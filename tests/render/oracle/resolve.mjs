// Differential-test oracle of our own: reads {site, root, cases} as JSON on stdin, loads the
// recipes tree the way the site's build does (js-yaml, dates normalised, strategies and
// kv_store deployments keyed by `name`), calls the site's resolveCommand for every case and
// prints one JSON array: {ok: result} or {error: message} per case.
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const site = input.site;
const yaml = (await import(pathToFileURL(path.join(site, "node_modules/js-yaml/index.js")).href)).default;
const synth = await import(pathToFileURL(path.join(site, "src/lib/command-synthesis.js")).href);

function dates(v) {
  if (v instanceof Date) return v.toISOString().split("T")[0];
  if (Array.isArray(v)) return v.map(dates);
  if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, dates(x)]));
  return v;
}
const read = (p) => dates(yaml.load(fs.readFileSync(path.join(input.root, p), "utf8")));
const taxonomy = read("taxonomy.yaml");
const strategies = {};
for (const dir of ["strategies", "kv_store"]) {
  const full = path.join(input.root, dir);
  if (!fs.existsSync(full)) continue;
  for (const f of fs.readdirSync(full).filter((n) => n.endsWith(".yaml"))) {
    const s = read(path.join(dir, f));
    strategies[s.name] = s;
  }
}
const recipes = new Map();
const out = [];
for (const c of input.cases) {
  try {
    if (!recipes.has(c.path)) recipes.set(c.path, read(c.path));
    const r = recipes.get(c.path);
    const res = synth.resolveCommand(
      r, c.variant, c.strategy, c.hardware, c.features, strategies, taxonomy,
      c.advanced || [], c.nodes, c.pd_nodes ?? null, c.feature_modes || {},
      c.kv_offload ?? null, c.kv_instances ?? null);
    const extra = {};
    if (c.docker) {
      const variant = r.variants?.[c.variant] || r.variants?.default || {};
      const profiles = taxonomy.hardware_profiles || {};
      const hw = profiles[c.hardware] || {};
      const meta = synth.computeDockerMeta(r, variant, hw, c.hardware);
      const wrap = (command, argv, env, port = 8000) => ({
        docker_command: synth.buildDockerRun({ command, env, image: meta.image, gpuFlags: meta.gpuFlags, port }),
        docker_argv: synth.buildDockerArgv({ argv, env, meta, port }),
      });
      const procs = {};
      if (res.deployType === "multi_node" && res.headCommand) {
        procs.head = wrap(res.headCommand, res.headArgv, res.env);
        res.workerCommands.forEach((cmd, i) => { procs[`worker ${i + 1}`] = wrap(cmd, res.workerArgvs[i], res.env); });
      } else if (res.deployType === "pd_cluster") {
        procs.prefill = wrap(res.prefill.command, res.prefill.argv, res.prefill.env, 8001);
        procs.decode = wrap(res.decode.command, res.decode.argv, res.decode.env, 8002);
      } else if (res.deployType === "kv_store_lb" && !res.vllm) {
        // a kv-store deployment picked as the serving strategy: resolveCommand renders a
        // single command but the build's JSON has no vllm_* commands (nothing to wrap)
        procs.serve = { docker_command: null, docker_argv: [] };
      } else if (res.deployType === "kv_store_lb") {
        procs.vllm = wrap(res.vllm.command, res.vllm.argv, res.vllm.env);
        (res.vllm.workerCommands || []).forEach((cmd, i) => { procs[`vllm worker ${i + 1}`] = wrap(cmd, res.vllm.workerArgvs[i], res.vllm.env); });
      } else {
        procs.serve = wrap(res.command, res.argv, res.env);
      }
      extra.processes = procs;
      extra.docker_image = meta.image ?? null;
      const declared = r.meta?.hardware || {};
      extra.picker = synth.listCompatibleHardware(profiles, variant, r)
        .filter((id) => !profiles[id]?.restricted || id in declared);
      extra.default_hardware = synth.pickDefaultHardware(profiles, variant, r);
      extra.recommended = synth.recommendStrategy(r, hw, c.nodes);
    }
    out.push({ ok: JSON.parse(JSON.stringify(res)), extra });
  } catch (e) {
    out.push({ error: String(e && e.message || e) });
  }
}
process.stdout.write(JSON.stringify(out));
