#!/usr/bin/env node
// Black-box bridge to the official npm package chatgpt4pcg@1.4.1 for the differential tests.
//
// Usage: node oracle_bridge.js <folder that holds node_modules/chatgpt4pcg>  < cases.json  > results.json
// stdin:  a JSON array of cases {op, text, prefix}; op is one of the package's exported function names below.
// stdout: a JSON array, one result per case and in the same order: {ok: true, value} when the call returned,
//         {error: message} when it threw.
// Only the package's public exports are called; nothing of its implementation is read or copied here.
'use strict';

const path = require('path');

const oracleRoot = process.argv[2];
if (!oracleRoot) {
  process.stderr.write('usage: node oracle_bridge.js <oracle folder>\n');
  process.exit(2);
}
const pcg = require(path.resolve(oracleRoot, 'node_modules', 'chatgpt4pcg'));

const OPERATIONS = {
  countWords: (text) => pcg.countWords(text),
  containDisallowedCharacters: (text) => pcg.containDisallowedCharacters(text),
  containObjectTokens: (text) => pcg.containObjectTokens(text),
  extractCode: (text, prefix) => pcg.extractCode(text, prefix),
  convertTextToXML: (text, prefix) => pcg.convertTextToXML(text, prefix),
};

function runCase(testCase) {
  const operation = OPERATIONS[testCase.op];
  if (operation === undefined) {
    return { error: `bridge: unknown op ${JSON.stringify(testCase.op)}` };
  }
  try {
    const value = operation(testCase.text, testCase.prefix);
    return { ok: true, value: value === undefined ? null : value };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  const cases = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const results = cases.map(runCase);
  process.stdout.write(JSON.stringify(results));
});
