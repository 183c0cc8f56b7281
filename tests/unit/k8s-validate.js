// Validates Kubernetes objects (a JSON array on stdin) against the API schemas
// of npm's kubernetes-models, and refuses fields those schemas do not define.
"use strict";

const fs = require("fs");
const path = require("path");

// The model class (kubernetes-models/<group>/<version>/<Kind>) and its
// compiled schema (_schemas/IoK8sApi<Group><Version><Kind>.js, not exported
// by the package: loaded by its file name).
function modelOf(obj) {
  const [group, version] = obj.apiVersion.includes("/")
    ? obj.apiVersion.split("/") : ["", obj.apiVersion];
  const file = require.resolve(["kubernetes-models", group, version, obj.kind].filter(Boolean).join("/"));
  const root = path.resolve(path.dirname(file), group ? "../.." : "..");
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const name = "IoK8sApi" + cap((group || "core").split(".")[0]) + cap(version) + obj.kind;
  return { Model: require(file)[obj.kind], validate: require(path.join(root, "_schemas", name + ".js")).validate };
}

// The compiled validators read every property their schema knows, present or
// not, so a key of the document that no validator read is an unknown field
// (a typo such as "comand" that the API server's strict validation refuses).
function tracked(value, path, seen) {
  if (value === null || typeof value !== "object") return value;
  const read = new Set();
  seen.push({ path, value, read });
  const kids = {};
  return new Proxy(value, {
    get(target, key) {
      if (typeof key !== "string" || !Object.prototype.hasOwnProperty.call(target, key))
        return target[key];
      read.add(key);
      if (!(key in kids)) kids[key] = tracked(target[key], path + "/" + key, seen);
      return kids[key];
    },
  });
}

function unknownFields(seen) {
  const out = [];
  for (const { path, value, read } of seen) {
    if (Array.isArray(value)) continue;
    for (const k of Object.keys(value)) if (!read.has(k)) out.push(path + "/" + k);
  }
  return out;
}

const docs = JSON.parse(fs.readFileSync(0, "utf8"));
let bad = 0;
for (const { file, doc } of docs) {
  const what = `${file}: ${doc.kind} ${doc.metadata && doc.metadata.name}`;
  let errs = [];
  try {
    const { Model, validate } = modelOf(doc);
    const seen = [];
    new Model(doc).validate();  // throws with the path of the first error
    if (!validate(tracked(doc, "", seen)))
      errs = ["the compiled schema disagrees with the model"];
    errs = errs.concat(unknownFields(seen).map((p) => `${p}: unknown field`));
  } catch (e) {
    errs = [e.message.split("\n").slice(0, 3).join(" ")];
  }
  if (errs.length) {
    bad++;
    console.log(`FAIL: ${what}: ${errs.join("; ")}`);
  } else {
    console.log(`ok: ${what} valid (kubernetes-models)`);
  }
}
process.exit(bad ? 1 : 0);
