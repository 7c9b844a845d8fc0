// The memplan timeline page. x: execution position; y: address in the arena (offsets plans) or
// slot lanes (slots plans, whose slots sit at their bases). Everything is drawn on two canvases,
// so 10,000 owners stay responsive. Names come from input files: they only ever reach the page
// through textContent and canvas text, never as markup.
(function () {
  'use strict';
  var started = performance.now();
  var rootPicture = JSON.parse(document.getElementById('memplan-data').textContent);

  var MARGIN = {left: 84, right: 16, top: 8, bottom: 26};
  var UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  var arena = document.getElementById('arena');
  var liveCanvas = document.getElementById('live');
  var tooltip = document.getElementById('tooltip');
  var searchBox = document.getElementById('search');
  var searchStatus = document.getElementById('search-status');

  var stack = [];       // [{picture, label}], the outer graph first, then opened bodies
  var pic = null;       // the picture shown
  var layout = null;    // its layout shown
  var groups = [];      // owner indices grouped by colour: [{color, owners: Int32Array}]
  var view = {x0: 0, x1: 1, y0: 0, y1: 1};
  var pinned = -1;
  var hover = -1;
  var matches = [];
  var matchCursor = 0;
  var lowerNames = null;
  var drawn = 0;
  var signature = 0;
  var firstDrawMs = null;
  var drawQueued = false;

  function human(bytes) {
    var v = bytes, u = 0;
    while (Math.abs(v) >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
    if (u === 0) { return bytes + ' B'; }
    var s = Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
    if (s.indexOf('.') >= 0) { s = s.replace(/0+$/, '').replace(/\.$/, ''); }
    return s + ' ' + UNITS[u];
  }

  function exact(bytes) {
    return bytes.toLocaleString('en-US') + ' B';
  }

  function el(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined && text !== null) { e.textContent = text; }
    if (cls) { e.className = cls; }
    return e;
  }

  function owners() { return pic.owners; }
  function ownerCount() { return pic.owners.name.length; }
  function peak() { return Math.max(1, layout.peak); }

  // ---- showing a picture -------------------------------------------------------------------

  function show(picture, label) {
    pic = picture;
    layout = pic.layouts[0];
    pinned = -1;
    hover = -1;
    matches = [];
    lowerNames = null;
    searchBox.value = '';
    searchStatus.textContent = '';
    stack.push({picture: picture, label: label});
    buildGroups();
    header();
    legend();
    controlFlow();
    pinPanel();
    resetView();
  }

  function back(depth) {
    while (stack.length > depth + 1) { stack.pop(); }
    var top = stack.pop();
    show(top.picture, top.label);
  }

  function buildGroups() {
    var byColor = {};
    var order = [];
    var ops = pic.ops;
    var op = pic.owners.op;
    for (var i = 0; i < op.length; i++) {
      var c = op[i] < pic.distinctOps ? ops[op[i]].color : pic.otherColor;
      if (!byColor[c]) { byColor[c] = []; order.push(c); }
      byColor[c].push(i);
    }
    groups = order.map(function (c) { return {color: c, owners: Int32Array.from(byColor[c])}; });
  }

  function header() {
    var crumbs = document.getElementById('crumbs');
    crumbs.textContent = '';
    if (stack.length > 1) {
      stack.forEach(function (entry, depth) {
        if (depth > 0) { crumbs.appendChild(document.createTextNode(' / ')); }
        if (depth < stack.length - 1) {
          var b = el('button', entry.label);
          b.addEventListener('click', function () { back(depth); });
          crumbs.appendChild(b);
        } else {
          crumbs.appendChild(el('span', entry.label));
        }
      });
    }
    document.getElementById('title').textContent = pic.title;
    document.title = 'memplan: ' + pic.title;
    figures();
    var toggle = document.getElementById('layout-toggle');
    toggle.textContent = '';
    if (pic.layouts.length > 1) {
      pic.layouts.forEach(function (l) {
        var label = el('label');
        var input = document.createElement('input');
        input.type = 'radio';
        input.name = 'layout';
        input.id = 'layout-' + l.name;
        input.value = l.name;
        input.checked = l === layout;
        input.addEventListener('change', function () { setLayout(l.name); });
        label.appendChild(input);
        label.appendChild(document.createTextNode(' ' + l.name + ' plan'));
        toggle.appendChild(label);
      });
    } else {
      toggle.appendChild(el('span', layout.name + ' plan'));
    }
  }

  function figures() {
    var f = document.getElementById('figures');
    f.textContent = '';
    function fig(k, v) {
      var s = el('span');
      s.appendChild(el('span', k + ' ', 'k'));
      s.appendChild(el('b', v));
      f.appendChild(s);
    }
    var names = Object.keys(pic.bindings);
    fig('bindings', names.length ? names.map(function (k) { return k + '=' + pic.bindings[k]; }).join(', ') : 'none');
    fig('peak', human(layout.peak) + ' (' + layout.name + ')');
    fig('naive', human(pic.naive));
    fig('lower bound', human(pic.bound) + (pic.bound > 0 ? ', peak/bound ' + (layout.peak / pic.bound).toFixed(2) : ''));
    fig('savings', (pic.naive === 0 ? 0 : 100 * (1 - layout.peak / pic.naive)).toFixed(1) + '%');
    fig('owners', String(ownerCount()));
    fig('positions', String(pic.positions));
    if (layout.capacities) { fig('slots', String(layout.capacities.length)); }
    fig('engine', pic.engine);
  }

  function legend() {
    var box = document.getElementById('legend');
    box.textContent = '';
    var others = 0, otherCount = 0;
    pic.ops.forEach(function (op, i) {
      if (i >= pic.distinctOps) { others++; otherCount += op.count; return; }
      var row = el('div');
      var sw = el('span', null, 'swatch');
      sw.style.background = op.color;
      row.appendChild(sw);
      row.appendChild(document.createTextNode(op.name + ' (' + op.count + ')'));
      row.title = op.name;
      box.appendChild(row);
    });
    if (others > 0) {
      var row = el('div');
      var sw = el('span', null, 'swatch');
      sw.style.background = pic.otherColor;
      row.appendChild(sw);
      row.appendChild(document.createTextNode('other: ' + others + ' op types (' + otherCount + ')'));
      row.title = pic.ops.slice(pic.distinctOps).map(function (o) { return o.name; }).join(', ');
      box.appendChild(row);
    }
  }

  function controlFlow() {
    var section = document.getElementById('cf-section');
    var box = document.getElementById('control-flow');
    box.textContent = '';
    section.hidden = pic.controlFlow.length === 0;
    pic.controlFlow.forEach(function (cf) {
      var d = el('div', null, 'cf');
      d.appendChild(el('div', cf.op + ' ' + cf.node));
      d.appendChild(el('div', 'at position ' + cf.position + ', transient need '
          + (cf.transientNeed === null ? 'deferred (bind its symbols)' : human(cf.transientNeed)), 'k'));
      if (cf.position >= 0) {
        var go = el('button', 'show in timeline');
        go.type = 'button';
        go.addEventListener('click', function () { centerOn(cf.position, cf.position + 1); });
        d.appendChild(go);
      }
      cf.bodies.forEach(function (body) {
        var label = body.attribute + ': ' + (body.need === null ? 'deferred' : human(body.need));
        if (body.picture) {
          var b = el('button', 'open ' + label);
          b.type = 'button';
          b.className = 'open-body';
          b.addEventListener('click', function () { show(body.picture, cf.node + ' / ' + body.attribute); });
          d.appendChild(b);
        } else {
          d.appendChild(el('div', label, 'k'));
        }
      });
      box.appendChild(d);
    });
  }

  function setLayout(name) {
    for (var i = 0; i < pic.layouts.length; i++) {
      if (pic.layouts[i].name === name) {
        layout = pic.layouts[i];
        var radio = document.getElementById('layout-' + name);
        if (radio) { radio.checked = true; }
        view.y0 = 0;
        view.y1 = peak();
        figures();
        pinPanel();
        draw();
        return true;
      }
    }
    return false;
  }

  // ---- geometry ----------------------------------------------------------------------------

  function plotBox(canvas) {
    var w = canvas.clientWidth, h = canvas.clientHeight;
    return {x: MARGIN.left, y: MARGIN.top, w: Math.max(10, w - MARGIN.left - MARGIN.right),
      h: Math.max(10, h - MARGIN.top - MARGIN.bottom), cw: w, ch: h};
  }

  function xToPx(box, pos) { return box.x + (pos - view.x0) / (view.x1 - view.x0) * box.w; }
  function pxToX(box, px) { return view.x0 + (px - box.x) / box.w * (view.x1 - view.x0); }
  function yToPx(box, addr) { return box.y + box.h - (addr - view.y0) / (view.y1 - view.y0) * box.h; }
  function pxToY(box, py) { return view.y0 + (box.y + box.h - py) / box.h * (view.y1 - view.y0); }

  // The screen rectangle of owner i, at least one pixel each way so that small tensors show.
  function rectOf(box, i) {
    var o = pic.owners;
    var off = layout.offsets[i];
    var x = xToPx(box, o.def[i]);
    var w = xToPx(box, o.end[i] + 1) - x;
    var top = yToPx(box, off + o.bytes[i]);
    var h = yToPx(box, off) - top;
    if (w < 1) { w = 1; }
    if (h < 1) { top -= (1 - h) / 2; h = 1; }
    return [x, top, w, h];
  }

  function visible(box, r) {
    return r[0] <= box.x + box.w && r[0] + r[2] >= box.x && r[1] <= box.y + box.h && r[1] + r[3] >= box.y;
  }

  function prepare(canvas) {
    var dpr = window.devicePixelRatio || 1;
    var w = Math.round(canvas.clientWidth * dpr), h = Math.round(canvas.clientHeight * dpr);
    if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
    var ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, canvas.clientWidth, canvas.clientHeight);
    ctx.font = '11px system-ui, sans-serif';
    return ctx;
  }

  function byteTicks(lo, hi, count) {
    var span = hi - lo;
    if (span <= 0) { return [lo]; }
    var raw = span / count;
    // the unit is the largest power of 1024 up to twice the raw step, so steps read 512 KiB, 1 MiB, ...
    var unit = 1;
    while (unit * 1024 <= raw * 2) { unit *= 1024; }
    var r = raw / unit, p = Math.pow(10, Math.floor(Math.log10(r)));
    var step = [1, 2, 5, 10].map(function (m) { return m * p; }).filter(function (s) { return s >= r; })[0] * unit;
    step = Math.max(1, Math.round(step));
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi && out.length < 50; t += step) { out.push(t); }
    return out;
  }

  function positionTicks(lo, hi, count) {
    var raw = (hi - lo) / count;
    var p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1e-9))));
    var step = [1, 2, 5, 10].map(function (m) { return m * p; }).filter(function (s) { return s >= raw; })[0];
    step = Math.max(1, Math.round(step));
    var out = [];
    for (var t = Math.ceil(lo / step) * step; t <= hi && out.length < 60; t += step) { out.push(t); }
    return out;
  }

  // ---- drawing -----------------------------------------------------------------------------

  function requestDraw() {
    if (!drawQueued) {
      drawQueued = true;
      requestAnimationFrame(function () { drawQueued = false; draw(); });
    }
  }

  function draw() {
    drawArena();
    drawLive();
    if (firstDrawMs === null) { firstDrawMs = performance.now() - started; }
  }

  // Fills the plot box with the background and clips drawing to it; the caller restores.
  function paintAndClip(ctx, box) {
    ctx.fillStyle = '#fafafa';
    ctx.fillRect(box.x, box.y, box.w, box.h);
    ctx.save();
    ctx.beginPath();
    ctx.rect(box.x, box.y, box.w, box.h);
    ctx.clip();
  }

  function drawArena() {
    var ctx = prepare(arena);
    var box = plotBox(arena);
    var o = pic.owners;
    paintAndClip(ctx, box);
    if (layout.capacities) { slotLanes(ctx, box); }
    drawn = 0;
    var sig = 0;
    var outline = ownerCount() <= 3000;
    groups.forEach(function (g) {
      ctx.beginPath();
      var ids = g.owners;
      for (var k = 0; k < ids.length; k++) {
        var r = rectOf(box, ids[k]);
        if (!visible(box, r)) { continue; }
        ctx.rect(r[0], r[1], r[2], r[3]);
        drawn++;
        sig = (Math.imul(sig, 31) + Math.round(r[1] * 8) + 7 * Math.round(r[3] * 8)) | 0;
      }
      ctx.fillStyle = g.color;
      ctx.fill();
      if (outline) {
        ctx.strokeStyle = 'rgba(0,0,0,0.35)';
        ctx.lineWidth = 0.5;
        ctx.stroke();
      }
    });
    signature = (Math.imul(sig, 31) + drawn) | 0;
    inPlaceSegments(ctx, box);
    labels(ctx, box);
    matches.forEach(function (i) { outlineOwner(ctx, box, i, '#d400d4', 2); });
    if (hover >= 0) { outlineOwner(ctx, box, hover, '#000', 1.5); }
    if (pinned >= 0) {
      positionBand(ctx, box, o.def[pinned], 'rgba(255,170,0,0.22)', 'produced: ' + pic.nodes[o.def[pinned]], true);
      positionBand(ctx, box, o.end[pinned], 'rgba(0,140,255,0.18)', 'last read: ' + pic.nodes[o.end[pinned]], false);
      outlineOwner(ctx, box, pinned, '#000', 3);
    }
    ctx.restore();
    ctx.strokeStyle = '#999';
    ctx.lineWidth = 1;
    ctx.strokeRect(box.x, box.y, box.w, box.h);
    byteAxis(ctx, box, view.y0, view.y1, function (a) { return yToPx(box, a); });
    positionAxis(ctx, box);
  }

  // The longest prefix of text that fits width pixels, with an ellipsis when cut: a binary search
  // on the cut, O(log width) measurements of at most width + 1 characters each, so a name of
  // 30,000 characters costs what a short one does (no glyph is narrower than a pixel, so no more
  // than width characters can fit).
  function fitLabel(ctx, text, width) {
    var cap = Math.max(1, Math.ceil(width));
    if (text.length <= cap && ctx.measureText(text).width <= width) { return text; }
    var lo = 1, hi = Math.min(text.length - 1, cap);
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (ctx.measureText(cut(text, mid) + '\u2026').width <= width) { lo = mid; } else { hi = mid - 1; }
    }
    return cut(text, lo) + '\u2026';
  }

  // The first n UTF-16 units of text, one fewer if the cut would split a surrogate pair.
  function cut(text, n) {
    var c = text.charCodeAt(n - 1);
    return text.slice(0, c >= 0xd800 && c <= 0xdbff && n > 1 ? n - 1 : n);
  }

  // Names inside rectangles that are large enough: what makes a small graph readable.
  function labels(ctx, box) {
    var o = pic.owners;
    ctx.fillStyle = '#111';
    ctx.textBaseline = 'middle';
    var shown = 0;
    for (var i = 0; i < o.name.length && shown < 400; i++) {
      var r = rectOf(box, i);
      if (r[2] < 50 || r[3] < 14 || !visible(box, r)) { continue; }
      var x0 = Math.max(r[0], box.x) + 3, x1 = Math.min(r[0] + r[2], box.x + box.w) - 3;
      if (x1 - x0 < 30) { continue; }
      var text = fitLabel(ctx, o.name[i], x1 - x0);
      var y = Math.min(Math.max(r[1] + r[3] / 2, box.y + 8), box.y + box.h - 8);
      ctx.fillText(text, x0, y);
      shown++;
    }
  }

  function slotLanes(ctx, box) {
    var base = 0;
    ctx.strokeStyle = '#c8c8c8';
    ctx.lineWidth = 1;
    ctx.fillStyle = '#888';
    ctx.textBaseline = 'middle';
    for (var s = 0; s < layout.capacities.length; s++) {
      var lo = yToPx(box, base), hi = yToPx(box, base + layout.capacities[s]);
      if (s % 2 === 1) {
        ctx.fillStyle = '#f0f0f0';
        ctx.fillRect(box.x, hi, box.w, lo - hi);
      }
      ctx.beginPath();
      ctx.moveTo(box.x, hi);
      ctx.lineTo(box.x + box.w, hi);
      ctx.stroke();
      base += layout.capacities[s];
    }
  }

  function outlineOwner(ctx, box, i, color, width) {
    var r = rectOf(box, i);
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.strokeRect(r[0], r[1], r[2], r[3]);
  }

  function positionBand(ctx, box, pos, color, text, above) {
    var x0 = xToPx(box, pos), x1 = Math.max(x0 + 2, xToPx(box, pos + 1));
    ctx.fillStyle = color;
    ctx.fillRect(x0, box.y, x1 - x0, box.h);
    ctx.fillStyle = '#333';
    ctx.textBaseline = 'top';
    var right = x0 > box.x + box.w / 2;
    ctx.textAlign = right ? 'right' : 'left';
    ctx.fillText(text, right ? x0 - 3 : x1 + 3, box.y + (above ? 4 : 18));
    ctx.textAlign = 'left';
  }

  function byteAxis(ctx, box, lo, hi, toPx) {
    ctx.fillStyle = '#333';
    ctx.strokeStyle = '#333';
    ctx.textAlign = 'right';
    ctx.textBaseline = 'middle';
    byteTicks(lo, hi, Math.max(2, Math.floor(box.h / 45))).forEach(function (t) {
      var y = toPx(t);
      ctx.beginPath();
      ctx.moveTo(box.x - 4, y);
      ctx.lineTo(box.x, y);
      ctx.stroke();
      ctx.fillText(human(t), box.x - 6, y);
    });
    ctx.textAlign = 'left';
  }

  function positionAxis(ctx, box) {
    ctx.fillStyle = '#333';
    ctx.strokeStyle = '#333';
    ctx.textAlign = 'center';
    ctx.textBaseline = 'top';
    positionTicks(view.x0, view.x1, Math.max(2, Math.floor(box.w / 80))).forEach(function (t) {
      var x = xToPx(box, t);
      ctx.beginPath();
      ctx.moveTo(x, box.y + box.h);
      ctx.lineTo(x, box.y + box.h + 4);
      ctx.stroke();
      ctx.fillText(String(t), x, box.y + box.h + 6);
    });
    ctx.textAlign = 'right';
    ctx.fillText('position', box.x - 6, box.y + box.h + 6);
    ctx.textAlign = 'left';
  }

  function drawLive() {
    var ctx = prepare(liveCanvas);
    var box = plotBox(liveCanvas);
    var top = Math.max(1, Math.max(layout.peak, pic.bound)) * 1.2;
    function y(b) { return box.y + box.h - b / top * box.h; }
    paintAndClip(ctx, box);
    var first = Math.max(0, Math.floor(view.x0)), last = Math.min(pic.positions - 1, Math.ceil(view.x1));
    ctx.beginPath();
    ctx.moveTo(xToPx(box, first), y(0));
    if (last - first > box.w * 2) {
      // more positions than pixels: one column per pixel, at the most bytes live in it
      for (var px = 0; px < box.w; px++) {
        var p0 = Math.max(first, Math.floor(pxToX(box, box.x + px))), p1 = Math.min(last, Math.floor(pxToX(box, box.x + px + 1)));
        var m = 0;
        for (var p = p0; p <= p1; p++) { m = Math.max(m, pic.live[p]); }
        ctx.lineTo(box.x + px, y(m));
        ctx.lineTo(box.x + px + 1, y(m));
      }
    } else {
      for (var q = first; q <= last; q++) {
        ctx.lineTo(xToPx(box, q), y(pic.live[q]));
        ctx.lineTo(xToPx(box, q + 1), y(pic.live[q]));
      }
    }
    ctx.lineTo(xToPx(box, last + 1), y(0));
    ctx.closePath();
    ctx.fillStyle = 'rgba(78,121,167,0.25)';
    ctx.fill();
    ctx.strokeStyle = '#4e79a7';
    ctx.lineWidth = 1.2;
    ctx.stroke();
    pic.controlFlow.forEach(function (cf) {
      if (cf.position < 0) { return; }
      var x = xToPx(box, cf.position + 0.5);
      ctx.strokeStyle = '#b07aa1';
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(x, box.y);
      ctx.lineTo(x, box.y + box.h);
      ctx.stroke();
    });
    if (pinned >= 0) {
      positionBand(ctx, box, pic.owners.def[pinned], 'rgba(255,170,0,0.22)', '', true);
      positionBand(ctx, box, pic.owners.end[pinned], 'rgba(0,140,255,0.18)', '', false);
    }
    // the lower bound, where it is reached, and the peak the plan reserves
    ctx.setLineDash([3, 3]);
    ctx.strokeStyle = '#2f8a2a';
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(box.x, y(pic.bound));
    ctx.lineTo(box.x + box.w, y(pic.bound));
    ctx.stroke();
    ctx.setLineDash([7, 4]);
    ctx.strokeStyle = '#e15759';
    ctx.beginPath();
    ctx.moveTo(box.x, y(layout.peak));
    ctx.lineTo(box.x + box.w, y(layout.peak));
    ctx.stroke();
    ctx.setLineDash([]);
    var bx = xToPx(box, pic.boundPosition + 0.5);
    ctx.strokeStyle = '#2f8a2a';
    ctx.beginPath();
    ctx.moveTo(bx, box.y);
    ctx.lineTo(bx, box.y + box.h);
    ctx.stroke();
    ctx.textBaseline = 'bottom';
    ctx.fillStyle = '#c0392b';
    ctx.textAlign = 'right';
    ctx.fillText('peak ' + human(layout.peak) + ' (' + layout.name + ' plan)', box.x + box.w - 4, y(layout.peak) - 2);
    ctx.fillStyle = '#1f6b1a';
    var right = bx > box.x + box.w / 2;
    ctx.textAlign = right ? 'right' : 'left';
    ctx.textBaseline = 'top';
    var boundNode = pic.nodes.length ? pic.nodes[pic.boundPosition] : '';
    ctx.fillText('lower bound ' + human(pic.bound) + ' at position ' + pic.boundPosition + ' (' + boundNode + ')',
        right ? bx - 4 : bx + 4, Math.min(y(pic.bound) + 3, box.y + box.h - 14));
    ctx.textAlign = 'left';
    ctx.restore();
    ctx.strokeStyle = '#999';
    ctx.strokeRect(box.x, box.y, box.w, box.h);
    byteAxis(ctx, box, 0, top, y);
    ctx.fillStyle = '#555';
    ctx.textBaseline = 'top';
    ctx.fillText('bytes live', 4, box.y);
  }

  // ---- view changes ------------------------------------------------------------------------

  function resetView() {
    view = {x0: 0, x1: Math.max(1, pic.positions), y0: 0, y1: peak()};
    draw();
  }

  function clampView() {
    var maxX = Math.max(1, pic.positions), maxY = peak();
    var sx = Math.min(maxX, Math.max(0.5, view.x1 - view.x0));
    var sy = Math.min(maxY, Math.max(Math.min(16, maxY), view.y1 - view.y0));
    view.x0 = Math.min(Math.max(0, view.x0), maxX - sx);
    view.x1 = view.x0 + sx;
    view.y0 = Math.min(Math.max(0, view.y0), maxY - sy);
    view.y1 = view.y0 + sy;
  }

  function zoom(fx, fy, cx, cy) {
    if (cx === undefined) { cx = (view.x0 + view.x1) / 2; }
    if (cy === undefined) { cy = (view.y0 + view.y1) / 2; }
    view.x0 = cx - (cx - view.x0) * fx;
    view.x1 = cx + (view.x1 - cx) * fx;
    view.y0 = cy - (cy - view.y0) * fy;
    view.y1 = cy + (view.y1 - cy) * fy;
    clampView();
  }

  function centerOn(p0, p1, a0, a1) {
    var sx = view.x1 - view.x0;
    if (p1 - p0 > sx) { sx = Math.min(pic.positions, (p1 - p0) * 1.5); }
    view.x0 = (p0 + p1) / 2 - sx / 2;
    view.x1 = view.x0 + sx;
    if (a0 !== undefined && (a0 < view.y0 || a1 > view.y1)) {
      var sy = Math.max(view.y1 - view.y0, (a1 - a0) * 1.5);
      view.y0 = (a0 + a1) / 2 - sy / 2;
      view.y1 = view.y0 + sy;
    }
    clampView();
    draw();
  }

  // ---- pointer -----------------------------------------------------------------------------

  // The owner under a point: the one whose bytes are there, else the smallest rectangle drawn
  // there (tensors under a pixel tall are drawn a pixel tall).
  function hit(px, py) {
    var box = plotBox(arena);
    if (px < box.x || px > box.x + box.w || py < box.y || py > box.y + box.h) { return -1; }
    var o = pic.owners;
    var pos = pxToX(box, px), addr = pxToY(box, py);
    var best = -1, bestArea = Infinity;
    for (var i = 0; i < o.def.length; i++) {
      if (o.def[i] <= pos && pos < o.end[i] + 1 && layout.offsets[i] <= addr && addr < layout.offsets[i] + o.bytes[i]) {
        return i;
      }
      var r = rectOf(box, i);
      if (px >= r[0] && px <= r[0] + r[2] && py >= r[1] && py <= r[1] + r[3]) {
        var area = r[2] * r[3];
        if (area < bestArea) { best = i; bestArea = area; }
      }
    }
    return best;
  }

  // One buffer, several tensors: a dashed line where each in-place segment starts.
  function inPlaceSegments(ctx, box) {
    var o = pic.owners;
    if (!o.inPlace) { return; }
    ctx.save();
    ctx.strokeStyle = 'rgba(255,255,255,0.9)';
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 2]);
    Object.keys(o.inPlace).forEach(function (key) {
      var i = Number(key);
      var r = rectOf(box, i);
      if (!visible(box, r)) { return; }
      var span = o.end[i] - o.def[i] + 1;
      o.inPlace[key].forEach(function (seg) {
        var x = r[0] + (seg[2] - o.def[i]) / span * r[2];
        ctx.beginPath();
        ctx.moveTo(x, r[1]);
        ctx.lineTo(x, r[1] + r[3]);
        ctx.stroke();
      });
    });
    ctx.restore();
  }

  function describe(i, into) {
    var o = pic.owners;
    into.textContent = '';
    into.appendChild(el('div', o.name[i], 'name'));
    function line(k, v) {
      var d = el('div');
      d.appendChild(el('span', k + ' ', 'k'));
      d.appendChild(document.createTextNode(v));
      into.appendChild(d);
    }
    line('op', pic.ops[o.op[i]].name + (pic.nodes.length ? ' (node ' + pic.nodes[o.def[i]] + ')' : ''));
    line('shape', o.shape[i] + (o.boundShape[i] !== o.shape[i] ? ' = ' + o.boundShape[i] : ''));
    line('dtype', o.dtype[i]);
    line('bytes', exact(o.bytes[i]) + (o.bytes[i] >= 1024 ? ' (' + human(o.bytes[i]) + ')' : ''));
    line('interval', 'positions ' + o.def[i] + '\u2013' + o.end[i]
        + (pic.nodes.length ? ' (' + pic.nodes[o.def[i]] + ' \u2192 ' + pic.nodes[o.end[i]] + ')' : ''));
    var where = 'offset ' + exact(layout.offsets[i]);
    if (layout.slots) { where = 'slot ' + layout.slots[i] + ', ' + where; }
    line(layout.name, where);
    var segs = o.inPlace && o.inPlace[String(i)];
    if (segs) {
      segs.forEach(function (seg) {
        line('in place', seg[0] + ' (' + seg[1] + '), positions ' + seg[2] + '\u2013' + seg[3]);
      });
    }
  }

  function pinPanel() {
    var box = document.getElementById('pinned');
    if (pinned < 0) {
      box.textContent = 'click a tensor to pin it';
    } else {
      describe(pinned, box);
    }
  }

  function pin(i) {
    pinned = i;
    pinPanel();
    draw();
  }

  function showTooltip(i, clientX, clientY) {
    if (i < 0) { tooltip.hidden = true; return; }
    describe(i, tooltip);
    tooltip.hidden = false;
    var w = tooltip.offsetWidth, h = tooltip.offsetHeight;
    var x = clientX + 14, y = clientY + 14;
    if (x + w > window.innerWidth - 4) { x = clientX - w - 14; }
    if (y + h > window.innerHeight - 4) { y = clientY - h - 14; }
    tooltip.style.left = Math.max(4, x) + 'px';
    tooltip.style.top = Math.max(4, y) + 'px';
  }

  var drag = null;

  function local(e) {
    var r = arena.getBoundingClientRect();
    return [e.clientX - r.left, e.clientY - r.top];
  }

  arena.addEventListener('mousedown', function (e) {
    var p = local(e);
    drag = {x: p[0], y: p[1], view: {x0: view.x0, x1: view.x1, y0: view.y0, y1: view.y1}, moved: false};
  });

  window.addEventListener('mouseup', function (e) {
    if (drag && !drag.moved && e.target === arena) {
      var p = local(e);
      pin(hit(p[0], p[1]));
    }
    drag = null;
  });

  arena.addEventListener('mousemove', function (e) {
    var p = local(e);
    if (drag && (e.buttons & 1)) {
      var dx = p[0] - drag.x, dy = p[1] - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; }
      if (drag.moved) {
        var box = plotBox(arena);
        var spanX = drag.view.x1 - drag.view.x0, spanY = drag.view.y1 - drag.view.y0;
        view.x0 = drag.view.x0 - dx / box.w * spanX;
        view.x1 = view.x0 + spanX;
        view.y0 = drag.view.y0 + dy / box.h * spanY;
        view.y1 = view.y0 + spanY;
        clampView();
        tooltip.hidden = true;
        requestDraw();
        return;
      }
    }
    var i = hit(p[0], p[1]);
    showTooltip(i, e.clientX, e.clientY);
    if (i !== hover) { hover = i; requestDraw(); }
  });

  arena.addEventListener('mouseleave', function () {
    tooltip.hidden = true;
    if (hover >= 0) { hover = -1; requestDraw(); }
  });

  arena.addEventListener('wheel', function (e) {
    e.preventDefault();
    var p = local(e);
    var box = plotBox(arena);
    var d = e.deltaY !== 0 ? e.deltaY : e.deltaX;
    var f = Math.exp(Math.max(-1, Math.min(1, d * 0.002)));
    if (e.shiftKey || e.altKey) {
      zoom(1, f, undefined, pxToY(box, p[1]));
    } else {
      zoom(f, 1, pxToX(box, p[0]), undefined);
    }
    requestDraw();
  }, {passive: false});

  arena.addEventListener('dblclick', function () { resetView(); });

  document.getElementById('zoom-in').addEventListener('click', function () { zoom(0.5, 1); draw(); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoom(2, 1); draw(); });
  document.getElementById('zoom-in-y').addEventListener('click', function () { zoom(1, 0.5); draw(); });
  document.getElementById('zoom-out-y').addEventListener('click', function () { zoom(1, 2); draw(); });
  document.getElementById('reset').addEventListener('click', function () { resetView(); });
  window.addEventListener('resize', requestDraw);

  // ---- search ------------------------------------------------------------------------------

  function search(query) {
    var q = query.trim().toLowerCase();
    matches = [];
    matchCursor = 0;
    if (q.length > 0) {
      if (!lowerNames) { lowerNames = pic.owners.name.map(function (n) { return n.toLowerCase(); }); }
      var exactHit = -1;
      for (var i = 0; i < lowerNames.length; i++) {
        if (lowerNames[i].indexOf(q) >= 0) {
          matches.push(i);
          if (exactHit < 0 && lowerNames[i] === q) { exactHit = i; }
        }
      }
      if (exactHit >= 0) { matchCursor = matches.indexOf(exactHit); }
    }
    searchStatus.textContent = q.length === 0 ? '' : matches.length === 0 ? 'no tensor matches'
        : matches.length + (matches.length === 1 ? ' match' : ' matches') + (matches.length > 1 ? ' (Enter: next)' : '');
    if (matches.length > 0) {
      focusMatch();
    } else {
      draw();
    }
    return matches.length;
  }

  // Pins the current match and brings it into view, zoomed in enough to see it among its neighbours.
  function focusMatch() {
    var i = matches[matchCursor];
    pinned = i;
    pinPanel();
    var o = pic.owners;
    var len = o.end[i] + 1 - o.def[i];
    var sx = Math.min(view.x1 - view.x0, Math.max(len * 3, 24));
    var sy = Math.min(view.y1 - view.y0, Math.max(o.bytes[i] * 6, peak() / 64));
    var cx = (o.def[i] + o.end[i] + 1) / 2, cy = layout.offsets[i] + o.bytes[i] / 2;
    view = {x0: cx - sx / 2, x1: cx + sx / 2, y0: cy - sy / 2, y1: cy + sy / 2};
    clampView();
    draw();
  }

  searchBox.addEventListener('input', function () { search(searchBox.value); });
  searchBox.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && matches.length > 0) {
      matchCursor = (matchCursor + 1) % matches.length;
      focusMatch();
    }
  });

  // ---- test hook ---------------------------------------------------------------------------

  /** State for tests (and the curious): what is drawn, and ways to drive the view. */
  window.memplanView = {
    firstDrawMs: function () { return firstDrawMs; },
    ownerCount: ownerCount,
    drawnCount: function () { return drawn; },
    drawSignature: function () { return signature; },
    visibleRange: function () { return {x0: view.x0, x1: view.x1, y0: view.y0, y1: view.y1}; },
    layout: function () { return layout.name; },
    layouts: function () { return pic.layouts.map(function (l) { return l.name; }); },
    setLayout: setLayout,
    search: search,
    pinned: function () { return pinned < 0 ? null : pic.owners.name[pinned]; },
    title: function () { return pic.title; },
    depth: function () { return stack.length - 1; },
    back: function () { back(0); },
    /** Canvas-relative CSS pixel of the centre of the visible part of the named owner, or null. */
    pointOf: function (name) {
      var i = pic.owners.name.indexOf(name);
      if (i < 0) { return null; }
      var box = plotBox(arena);
      var r = rectOf(box, i);
      var x0 = Math.max(r[0], box.x), x1 = Math.min(r[0] + r[2], box.x + box.w);
      var y0 = Math.max(r[1], box.y), y1 = Math.min(r[1] + r[3], box.y + box.h);
      if (x1 < x0 || y1 < y0) { return null; }
      return {x: (x0 + x1) / 2, y: (y0 + y1) / 2, width: arena.clientWidth, height: arena.clientHeight};
    },
    zoom: function (fx, fy) { zoom(fx, fy); draw(); return this.visibleRange(); },
    reset: resetView
  };

  show(rootPicture, rootPicture.title);
})();
