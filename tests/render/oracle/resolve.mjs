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
      const hw = taxonomy.hardware_profiles?.[c.hardware] || {};
      const meta = synth.computeDockerMeta(r, variant, hw, c.hardware);
      extra.docker_image = meta.image ?? null;
      if (res.command && res.argv) {
        extra.docker_command = synth.buildDockerRun({ command: res.command, env: res.env, image: meta.image, gpuFlags: meta.gpuFlags });
        extra.docker_argv = synth.buildDockerArgv({ argv: res.argv, env: res.env, meta });
      }
      extra.compatible = synth.listCompatibleHardware(taxonomy.hardware_profiles, variant, r);
      extra.default_hardware = synth.pickDefaultHardware(taxonomy.hardware_profiles, variant, r);
      extra.recommended = synth.recommendStrategy(r, hw, c.nodes);
    }
    out.push({ ok: JSON.parse(JSON.stringify(res)), extra });
  } catch (e) {
    out.push({ error: String(e && e.message || e) });
  }
}
process.stdout.write(JSON.stringify(out));
