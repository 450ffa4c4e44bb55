// Split an ICAE case file into one input file per case (<dir>/<i>.json) and print how many there are.
const fs = require("fs");
let cases = [];
try { cases = JSON.parse(fs.readFileSync(process.argv[2], "utf8")).cases || []; } catch (e) { cases = []; }
cases.forEach((c, i) => {
  fs.writeFileSync(`${process.argv[3]}/${i}.json`, JSON.stringify(c.input === undefined ? null : c.input));
});
console.log(cases.length);
