// Run many JavaScript goldens' handle on their inputs in one process: golden<i>/src/index.js, inputs from argv[2].
const path = require("path");
const jobs = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const outputs = jobs.map((job, i) => {
  const { handle } = require(path.resolve("golden" + i, "src", "index.js"));
  return job.map((x) => handle(x));
});
process.stdout.write(JSON.stringify(outputs));
