// Execution adapter: one JSON value on stdin, the tool's output on stdout.
const { handle } = require("./src/index.js");

let text = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { text += chunk; });
process.stdin.on("end", () => { process.stdout.write(handle(JSON.parse(text))); });
