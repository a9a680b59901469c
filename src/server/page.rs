//! The upload page at `/`: a form that sends one document to `POST /check`
//! and lists what the archive holds of it (`POST /check?format=html` gives
//! the whole report as a page). Self-contained (no external
//! resources), so it works on a network without internet.

/// The page.
pub(crate) const UPLOAD: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>pan-detect: check a document</title>
<style>
body { font-family: sans-serif; max-width: 60em; margin: 2em auto; padding: 0 1em; color: #222; }
fieldset { border: 1px solid #bbb; padding: 1em; }
label { display: block; margin: 0.5em 0; }
table { border-collapse: collapse; margin-top: 1em; width: 100%; }
td, th { border-bottom: 1px solid #ddd; padding: 0.3em 0.5em; text-align: left; vertical-align: top; }
#status { margin-top: 1em; }
.error { color: #a00; }
</style>
</head>
<body>
<h1>Check a document against the archive</h1>
<form id="upload">
<fieldset>
<label>Document (plain text, PDF, DOCX, ODT or HTML): <input type="file" name="file" id="file" required></label>
<label>Token (only if this server asks for one): <input type="password" id="token" autocomplete="off"></label>
<button type="submit">Check</button>
</fieldset>
</form>
<div id="status"></div>
<table id="results" hidden>
<thead><tr><th>Archive document</th><th>% of the upload from it</th><th>% of it in the upload</th><th>Passages</th></tr></thead>
<tbody></tbody>
</table>
<script>
"use strict";
const form = document.getElementById("upload");
const statusLine = document.getElementById("status");
const results = document.getElementById("results");
function show(message, isError) {
  statusLine.textContent = message;
  statusLine.className = isError ? "error" : "";
}
function cell(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.appendChild(td);
}
form.addEventListener("submit", async (event) => {
  event.preventDefault();
  const file = document.getElementById("file").files[0];
  if (!file) { return; }
  const token = document.getElementById("token").value;
  const headers = token ? { "Authorization": "Bearer " + token } : {};
  show("Checking " + file.name + "…", false);
  results.hidden = true;
  try {
    const response = await fetch("/check?name=" + encodeURIComponent(file.name), { method: "POST", headers, body: file });
    const answer = await response.json();
    if (!response.ok) { show(answer.error || response.statusText, true); return; }
    const report = answer.documents[0];
    const body = results.querySelector("tbody");
    body.replaceChildren();
    for (const source of report.sources) {
      const row = document.createElement("tr");
      cell(row, source.name);
      cell(row, source.document_aligned_percent.toFixed(2));
      cell(row, source.source_aligned_percent.toFixed(2));
      cell(row, String(source.passages.length));
      body.appendChild(row);
    }
    results.hidden = report.sources.length === 0;
    show(report.aligned_percent.toFixed(2) + " % of " + file.name + " is in passages from " +
         report.sources.length + " archive documents.", false);
  } catch (error) {
    show("The server did not answer: " + error, true);
  }
});
</script>
</body>
</html>
"#;
