// CUDA-toggle oracle of our own: reads {site, page, cases} as JSON on stdin. `page` is the
// text of the site's record-page component (CommandBuilder.jsx); the function body of its
// docker-image memo (the step that applies the reader's CUDA build to the image) is taken
// from it as written and run over the site's own computeDockerMeta. Prints one JSON array:
// the image the page shows per case {recipe, variant, hwProfile, hwId, toggle}.
import fs from "fs";
import path from "path";
import { pathToFileURL } from "url";

const input = JSON.parse(fs.readFileSync(0, "utf8"));
const synth = await import(pathToFileURL(path.join(input.site, "src/lib/command-synthesis.js")).href);

const START = "const dockerMeta = useMemo(";
const END = "}, [recipe, currentVariant, hwProfile, hwId, dockerCudaVariant, altCudaSuffix]);";
const from = input.page.indexOf(START);
const to = input.page.indexOf(END, from);
if (from < 0 || to < 0) throw new Error("the page's docker-image memo was not found");
const arrow = input.page.slice(from + START.length, to + 1);
const alt = /const altCudaSuffix = ("[^"]*");/.exec(input.page);
if (!alt) throw new Error("the page's altCudaSuffix was not found");
const memo = new Function("computeDockerMeta", "recipe", "currentVariant", "hwProfile", "hwId",
  "dockerCudaVariant", `const altCudaSuffix = ${alt[1]}; return (${arrow})();`);

const out = input.cases.map((c) => {
  try {
    return { ok: memo(synth.computeDockerMeta, c.recipe, c.variant, c.hwProfile, c.hwId, c.toggle).image };
  } catch (e) {
    return { error: String(e) };
  }
});
process.stdout.write(JSON.stringify(out));
