"""The record page's picker script (part of ``assets/site.js``): reads the picker data
(:mod:`validator.evidence.site.configurations`), and on every pick shows the configuration
the site offers for it -- the one matching the pick and as many of the other choices as
possible, in the order of the selects -- with its verdict, install minimum, JSON link and
blocks; the choice is kept in the URL's fragment as readable parameters
(``#hardware=h200&variant=default&strategy=single_node_tp&...&features=a,b``; the earlier
``#config=<json name>`` still opens; ``&cuda=cu129`` when the reader picked that CUDA
build of an NVIDIA image (a plain tag, or a CUDA map of both builds): the page then shows
the lines and JSON of ``render --cuda cu129``), so a shared
link and back / forward restore it. The JSON link is a download made in the page from a
``Blob``: the first time a reader asks for one, the page loads its configurations' table
(``<page>.configs.js``, :mod:`validator.evidence.site.config_json`) and lays the chosen
configuration's document out as ``json.dumps(..., indent=2)`` does."""

from __future__ import annotations

PICKER_JS = """\
(function () {
  "use strict";
  var holder = document.getElementById("picker-data");
  var form = document.getElementById("picker");
  if (!holder || !form) { return; }
  var D = JSON.parse(holder.textContent), S = D.strings, L = [];
  D.configs = D.configs.map(function (c) {  // [choices, features, labels, blockset, ...]
    return [c[0]].concat(D.featuresets[c[1]], c.slice(2, 5),
      c.length > 5 ? [D.cudasets[c[5]], c[6]] : []);
  });
  D.blocks.forEach(function (row) {  // each block's lines: its own, or its base's edited
    if (row.length === 3) { L.push(row[2]); return; }
    var base = L[row[2]], lines = [], pos = 0;
    row[3].forEach(function (edit) {
      lines = lines.concat(base.slice(pos, edit[0]), edit.slice(2));
      pos = edit[1];
    });
    L.push(lines.concat(base.slice(pos)));
  });
  var names = D.choices.map(function (c) { return c[0]; });
  var cudaSel = form.elements.cuda;
  function cuda(c) {  // the CUDA build picked, where configuration c offers the choice
    return cudaSel && c.length > 6 ? cudaSel.value : "cu130";
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function features(c) { return c[1].map(function (i) { return S[i]; }); }
  function picked() {
    var p = {};
    names.forEach(function (n) { p[n] = form.elements[n].value; });
    p.features = Array.prototype.filter.call(form.querySelectorAll("input[name=feature]"),
      function (b) { return b.checked; }).map(function (b) { return b.value; });
    return p;
  }
  function score(c, p) {
    var s = 0, w = 1 << 20;
    names.forEach(function (n, i) { if (S[c[0][i]] === p[n]) { s += w; } w >>= 1; });
    var f = features(c);
    p.features.forEach(function (x) { if (f.indexOf(x) >= 0) { s += 1; } });
    f.forEach(function (x) { if (p.features.indexOf(x) < 0) { s -= 1; } });
    return s;
  }
  function best(p, changed) {
    var top = -1, at = D["default"];
    D.configs.forEach(function (c, k) {
      if (changed && changed.name === "feature") {
        if ((features(c).indexOf(changed.value) >= 0) !== changed.checked) { return; }
      } else if (changed) {
        if (S[c[0][names.indexOf(changed.name)]] !== changed.value) { return; }
      }
      var s = score(c, p);
      if (s > top) { top = s; at = k; }
    });
    return at;
  }
  function setForm(c) {
    names.forEach(function (n, i) { form.elements[n].value = S[c[0][i]]; });
    if (cudaSel) { cudaSel.disabled = c.length <= 6; }
    var f = features(c);
    Array.prototype.forEach.call(form.querySelectorAll("input[name=feature]"), function (b) {
      b.checked = f.indexOf(b.value) >= 0;
    });
  }
  function verdict(c) {
    var rows = D.verdicts[c[4]].map(function (n) { return D.findings[n]; });
    var errs = rows.filter(function (r) { return r[0] === "error"; }).length;
    var warns = rows.filter(function (r) { return r[0] === "warning"; }).length;
    var box = el("div", "verdict " + (errs ? "err" : warns ? "warn" : "ok"));
    box.id = "verdict";
    var head = el("p");
    head.appendChild(el("strong", "", errs
      ? "This exact command fails recipe-check: " + errs + " error(s)"
      : warns ? "No error; " + warns + " warning(s) for this exact command"
        : "No error or warning applies to this exact command"));
    if (D.whole.length) {
      head.appendChild(document.createTextNode(" "));
      head.appendChild(el("span", "muted", D.whole.length +
        " finding(s) about the recipe as a whole: see Findings."));
    }
    box.appendChild(head);
    if (rows.length) {
      var list = el("ul");
      rows.forEach(function (r) {
        var li = el("li");
        li.appendChild(el("strong", "", r[0] + " " + r[1]));
        li.appendChild(document.createTextNode(" (" + D.file + " line " + r[3] + "): " +
          r[2]));
        list.appendChild(li);
      });
      box.appendChild(list);
    }
    return box;
  }
  function blocks(c) {
    var out = el("div");
    out.id = "chosen-blocks";
    var whole = {}, line = {}, t, swaps = cuda(c) === "cu129" ? c[6] : [];
    for (t = 0; t < swaps.length; t += 3) {
      if (swaps[t + 1] < 0) { whole[swaps[t]] = swaps[t + 2]; }
      else { line[swaps[t] + "," + swaps[t + 1]] = swaps[t + 2]; }
    }
    D.blocksets[c[3]].forEach(function (b, n) {
      var id = n in whole ? whole[n] : b, block = D.blocks[id], wrap = el("div", "cmd"),
        p = el("p");
      p.appendChild(el("strong", "", S[block[0]]));
      p.appendChild(document.createTextNode(" "));
      if (block[1]) {
        var button = el("button", "copy", "Copy");
        button.type = "button";
        button.setAttribute("data-target", "pb" + n);
        p.appendChild(button);
      } else {
        p.appendChild(el("span", "muted",
          "no Copy button: the recipe puts shell code in this command (REF018)"));
      }
      var pre = el("pre"), code = el("code", "", L[id].map(function (i, m) {
        var k = n + "," + m;
        return S[k in line ? line[k] : i];
      }).join("\\n"));
      code.id = "pb" + n;
      pre.appendChild(code);
      wrap.appendChild(p);
      wrap.appendChild(pre);
      out.appendChild(wrap);
    });
    return out;
  }
  var J = null, waiting = [], blobUrl = null, current = D["default"];
  var jsonA = document.querySelector("a.config-json");
  window.recipeCheckConfigJson = function (table) {
    J = table;
    waiting.splice(0).forEach(function (f) { f(); });
  };
  function object(n) {  // [shape, refs] of an object, the edits over its base applied
    var edits = [], e, i;
    while (n[0] === 5) { edits.push(n); n = J.nodes[n[1]]; }
    var refs = n.slice(2);
    for (e = edits.length - 1; e >= 0; e--) {
      for (i = 2; i < edits[e].length; i += 2) { refs[edits[e][i]] = edits[e][i + 1]; }
    }
    return [n[1], refs];
  }
  function items(n) {  // an array's or string's items (chunks spliced), an object's refs
    if (n[0] === 3 || n[0] === 4) {
      return [].concat.apply([], n.slice(1).map(function (c) { return J.nodes[c].slice(1); }));
    }
    return n[0] === 1 || n[0] === 5 ? object(n)[1] : n.slice(1);
  }
  function layout(r, ind) {
    if (r < 0) { return J.texts[-r - 1]; }
    var n = J.nodes[r], xs = items(n), inner = ind + "  ";
    if (n[0] === 2 || n[0] === 4) {
      return '"' + xs.map(function (t) { return J.texts[t]; }).join("\\\\n") + '"';
    }
    var keys = n[0] === 1 || n[0] === 5 ? J.shapes[object(n)[0]] : null;
    if (!xs.length) { return keys ? "{}" : "[]"; }
    return (keys ? "{" : "[") + "\\n" + xs.map(function (x, i) {
      return inner + (keys ? J.texts[keys[i]] + ": " : "") + layout(x, inner);
    }).join(",\\n") + "\\n" + ind + (keys ? "}" : "]");
  }
  function withJson(done) {
    if (J) { done(); return; }
    waiting.push(done);
    if (waiting.length > 1) { return; }
    var s = document.createElement("script");
    s.src = encodeURIComponent(D.json);
    s.onerror = function () {
      waiting = [];
      document.getElementById("picker-note").textContent =
        "The configurations' JSON (" + D.json + ") could not be loaded.";
    };
    document.body.appendChild(s);
  }
  function jsonLink(k) {
    current = k;
    if (blobUrl) { URL.revokeObjectURL(blobUrl); blobUrl = null; }
    jsonA.hidden = false;
    var c = D.configs[k], cu129 = cuda(c) === "cu129";
    jsonA.download = D.file.replace(/\\.ya?ml$/, "") + "." +
      (cu129 ? c[5].replace(/\\.json$/, ".cu129.json") : c[5]);
    if (J) {
      var root = J.roots[cu129 ? D.configs.length + c[7] : k];
      blobUrl = URL.createObjectURL(new Blob([layout(root, "") + "\\n"],
        {type: "application/json"}));
      jsonA.href = blobUrl;
    } else {
      jsonA.href = "#chosen-json";
    }
  }
  jsonA.addEventListener("click", function (e) {
    if (J) { return; }
    e.preventDefault();
    withJson(function () { jsonLink(current); jsonA.click(); });
  });
  function show(k, push) {
    var c = D.configs[k];
    setForm(c);
    var labels = c[2].map(function (i) { return S[i]; }).join(", ") || "none";
    document.getElementById("chosen-title").textContent = c[0].slice(0, 4).map(function (i) {
      return S[i];
    }).join(" \\u00b7 ") + " \\u00b7 features: " + labels;
    document.getElementById("verdict").replaceWith(verdict(c));
    var variant = S[c[0][1]];
    var install = document.getElementById("chosen-install");
    install.textContent = "";
    install.appendChild(document.createTextNode("Install: vLLM \\u2265 "));
    install.appendChild(el("strong", "", D.floors[variant] || "unknown"));
    install.appendChild(document.createTextNode(" (the effective minimum of variant " +
      variant + ")"));
    jsonLink(k);
    document.getElementById("chosen-blocks").replaceWith(blocks(c));
    var hash = "#" + names.map(function (n, i) {
      return n + "=" + encodeURIComponent(S[c[0][i]]);
    }).join("&") + "&features=" + features(c).map(encodeURIComponent).join(",") +
      (cuda(c) !== "cu130" ? "&cuda=" + cuda(c) : "");
    if (push && location.hash !== hash) { history.pushState(null, "", hash); }
  }
  function fromHash() {
    var k = D["default"], text = location.hash.slice(1);
    var m = /^config=([0-9a-f]+)$/.exec(text);
    if (m) {  // the earlier, opaque form of a shared link
      D.configs.forEach(function (c, i) { if (c[5] === m[1] + ".json") { k = i; } });
      return k;
    }
    var want = {};
    text.split("&").forEach(function (pair) {
      var at = pair.indexOf("=");
      if (at > 0) {
        try { want[pair.slice(0, at)] = decodeURIComponent(pair.slice(at + 1)); }
        catch (e) { /* not a parameter of ours */ }
      }
    });
    if (cudaSel) { cudaSel.value = want.cuda === "cu129" ? "cu129" : "cu130"; }
    var found = -1;
    D.configs.forEach(function (c, i) {
      if (found >= 0) { return; }
      var same = names.every(function (n, j) {
        return !(n in want) || S[c[0][j]] === want[n];
      });
      if (same && "features" in want) {
        same = features(c).slice().sort().join() ===
          want.features.split(",").filter(Boolean).sort().join();
      }
      if (same) { found = i; }
    });
    return found >= 0 && Object.keys(want).length ? found : k;
  }
  form.addEventListener("change", function (e) {
    var t = e.target, p = picked();
    if (t.name === "cuda") { show(current, true); return; }
    var changed = t.name === "feature" ? {name: "feature", value: t.value, checked: t.checked}
      : {name: t.name, value: t.value};
    var k = best(p, changed), c = D.configs[k], moved = [];
    names.forEach(function (n, i) {
      if (S[c[0][i]] !== p[n]) { moved.push(n + " " + S[c[0][i]]); }
    });
    var f = features(c);
    if (f.slice().sort().join() !== p.features.slice().sort().join()) {
      moved.push("features " + (f.join(", ") || "none"));
    }
    document.getElementById("picker-note").textContent = moved.length
      ? "The site does not offer that combination; also changed: " + moved.join("; ") + "."
      : "";
    show(k, true);
  });
  form.addEventListener("submit", function (e) { e.preventDefault(); });
  function restore() {
    if (location.hash === "" || location.hash.indexOf("=") > 0) {
      show(fromHash(), false);
    }
  }
  window.addEventListener("popstate", restore);
  window.addEventListener("hashchange", restore);
  show(fromHash(), false);
})();
"""
