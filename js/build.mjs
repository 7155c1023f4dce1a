// Bundles each widget's front end into ../fairnb/static (one ES module per widget, plus the CSS).
// `node build.mjs` builds minified files; `node build.mjs --watch` rebuilds on change with inline source maps.
import * as esbuild from "esbuild";

const watch = process.argv.includes("--watch");
const options = {
  entryPoints: ["src/progress_panel.js", "src/pair_inspector.js", "src/image_inspector.js", "src/fairnb.css"],
  bundle: true,
  format: "esm",
  target: "es2020",
  outdir: "../fairnb/static",
  minify: !watch,
  sourcemap: watch ? "inline" : false,
  logLevel: "info",
};
options.entryPoints.push("src/text_inspector.js");   // its CSS comes out beside it, as text_inspector.css

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
