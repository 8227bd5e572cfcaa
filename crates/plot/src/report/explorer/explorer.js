// ramp report explorer (docs/charts.md § Explorer). Hand-written, no
// library, no network: the data is in the page (typed columns, base64),
// decoded synchronously while the page loads. Every statistic is computed as
// ramp's Rust code computes it, so the page and the summaries agree:
// - percentiles: linear interpolation between order statistics
//   (Hyndman & Fan type 7; ramp_vocab::quantile);
// - time metrics: a path counts only if it completed in every arm (the
//   fleet summary's pairing); loss ratio: 100 * lost / sent over the
//   connections that sent a packet (the summary's loss table);
// - band: percentile bootstrap, the arm and the baseline resampled
//   independently, by ramp_plot::bootstrap's counted resampling with
//   SplitMix64 seeded as ramp_plot::ab_curves seeds it.
(function () {
  'use strict';
  var root = document.getElementById('explorer-root');
  var META = JSON.parse(document.getElementById('explorer-meta').textContent);
  var N = META.paths;
  var ARMS = META.arms;
  var A = ARMS.length;
  var TWO32 = 4294967296;
  var PROBS = [];
  for (var k = 1; k <= 99; k++) PROBS.push(k / 100);
  // Table rows: deciles (as summary.json), p95, p99.
  var ROWS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99];
  // The percentiles whose changes summary.json averages (p5, p15, ... p95).
  var STEPS = [5, 15, 25, 35, 45, 55, 65, 75, 85, 95];

  function esc(s) {
    return String(s).replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }

  // ---------- percentiles (ramp_vocab::quantile::quantile_sorted)
  function quantile(sorted, p) {
    var n = sorted.length;
    if (n === 0) return NaN;
    p = Math.min(1, Math.max(0, p));
    var h = (n - 1) * p;
    var lo = Math.floor(h);
    var frac = h - lo;
    var a = sorted[lo];
    return (frac > 0 && lo + 1 < n) ? a + frac * (sorted[lo + 1] - a) : a;
  }
  function mean(sorted) {
    if (sorted.length === 0) return NaN;
    var s = 0;
    for (var i = 0; i < sorted.length; i++) s += sorted[i];
    return s / sorted.length;
  }
  // summary.rs `change`: NaN unless the baseline is positive.
  function change(v, base) { return base > 0 ? 100 * (v / base - 1) : NaN; }

  // ---------- SplitMix64 in 32-bit halves (ramp_vocab::rng::SplitMix64)
  // Results and state live in typed arrays: V8 then keeps the 32-bit
  // values unboxed (plain variables above 2^30 would be heap numbers, and
  // the band draws hundreds of millions of them).
  var M = new Uint32Array(2); // [high, low] of the last product / draw
  // Low 64 bits of (aH:aL) * (bH:bL) into M.
  function mul64(aH, aL, bH, bL) {
    var a0 = aL & 0xffff, a1 = aL >>> 16, b0 = bL & 0xffff, b1 = bL >>> 16;
    var p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    var mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
    M[1] = ((mid & 0xffff) << 16) | (p00 & 0xffff);
    M[0] = p11 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(aH, bL) + Math.imul(aL, bH);
  }
  function Rng(hi, lo) { this.s = new Uint32Array([hi, lo]); }
  // One splitmix64 step (Steele, Lea & Flood 2014); the output in M.
  Rng.prototype.next = function () {
    var s = this.s;
    var l = s[1] + 0x7F4A7C15;
    s[0] = s[0] + 0x9E3779B9 + (l >= TWO32 ? 1 : 0);
    s[1] = l;
    var zH = s[0], zL = s[1];
    mul64(zH ^ (zH >>> 30), zL ^ ((zL >>> 30) | (zH << 2)), 0xBF58476D, 0x1CE4E5B9);
    zH = M[0]; zL = M[1];
    mul64(zH ^ (zH >>> 27), zL ^ ((zL >>> 27) | (zH << 5)), 0x94D049BB, 0x133111EB);
    zH = M[0]; zL = M[1];
    M[1] = zL ^ ((zL >>> 31) | (zH << 1));
    M[0] = zH ^ (zH >>> 31);
  };
  // floor(x * n / 2^64), exact for n < 2^21 (SplitMix64::index).
  Rng.prototype.index = function (n) {
    this.next();
    return Math.floor((M[0] * n + Math.floor(M[1] * n / TWO32)) / TWO32);
  };
  // FNV-1a over the parts' UTF-8 bytes, each followed by 0xff (ab/curves.rs).
  function fnv1a(parts) {
    var h = 0xcbf29ce4, l = 0x84222325;
    var enc = new TextEncoder();
    for (var i = 0; i < parts.length; i++) {
      var bytes = enc.encode(parts[i]);
      for (var j = 0; j <= bytes.length; j++) {
        l = (l ^ (j < bytes.length ? bytes[j] : 0xff)) >>> 0;
        mul64(h, l, 0x100, 0x1b3); h = M[0]; l = M[1];
      }
    }
    return [h, l];
  }
  // bootstrap::resample_quantiles: quantiles of one resample of sorted
  // data, from the draws' counts.
  function resampleQuantiles(sorted, rng, counts, out) {
    var n = sorted.length, i;
    for (i = 0; i < n; i++) counts[i] = 0;
    for (i = 0; i < n; i++) counts[rng.index(n)]++;
    var j = 0, below = 0;
    for (var q = 0; q < PROBS.length; q++) {
      var h = (n - 1) * PROBS[q];
      var lo = Math.floor(h), frac = h - lo;
      while (below + counts[j] <= lo) { below += counts[j]; j++; }
      var a = sorted[j];
      if (frac > 0 && lo + 1 < n) {
        var aj = j, ab = below;
        while (ab + counts[aj] <= lo + 1) { ab += counts[aj]; aj++; }
        out[q] = a + frac * (sorted[aj] - a);
      } else {
        out[q] = a;
      }
    }
  }

  // ---------- data
  var DIMS = META.dims, RANGES = META.ranges;
  var COLS = {};
  var METRICS = [];
  function column(buf, c) {
    var T = { u8: Uint8Array, u16: Uint16Array, u32: Uint32Array, f64: Float64Array }[c.type];
    return new T(buf, c.offset, c.len);
  }
  // A value column as doubles, NaN where absent, divided by `div`.
  function values(name, div) {
    var c = COLS[name], out = new Float64Array(c.length);
    var absent = c instanceof Uint32Array ? 0xffffffff : -1;
    for (var i = 0; i < c.length; i++) {
      out[i] = c[i] === absent ? NaN : (div === 1 ? c[i] : c[i] / div);
    }
    return out;
  }
  function setupMetrics() {
    var v = META.values;
    var time = [['ttlb', 'TTLB', v['ttlb-us'] ? [v['ttlb-us'], 1000] : v.ttlb ? [v.ttlb, 1] : null],
      ['client-ttlb', 'client TTLB', v['client-ttlb-us'] ? [v['client-ttlb-us'], 1000] : null],
      ['plt', 'page load time', v['page-load-us'] ? [v['page-load-us'], 1000] : null]];
    time.forEach(function (t) {
      if (!t[2]) return;
      var vals = values(t[2][0], t[2][1]);
      // Paired: finite in every arm.
      var ok = new Uint8Array(N);
      for (var p = 0; p < N; p++) {
        var all = 1;
        for (var a = 0; a < A && all; a++) if (!isFinite(vals[a * N + p])) all = 0;
        ok[p] = all;
      }
      METRICS.push({ key: t[0], label: t[1], unit: 'ms', loss: false, vals: vals, paired: ok });
    });
    if (v['num-packets.sent'] && v['num-packets.lost']) {
      var sent = values(v['num-packets.sent'], 1), lost = values(v['num-packets.lost'], 1);
      var r = new Float64Array(sent.length);
      for (var i = 0; i < r.length; i++) r[i] = sent[i] > 0 ? 100 * lost[i] / sent[i] : NaN;
      METRICS.push({ key: 'loss', label: 'loss rate', unit: '%', loss: true, vals: r, paired: null });
    }
  }
  function metricOf(key) {
    for (var i = 0; i < METRICS.length; i++) if (METRICS[i].key === key) return METRICS[i];
    return METRICS[0];
  }

  // ---------- state and the URL fragment
  var state = null;
  function defaultState() {
    // Page-load runs are summarised by page load time (summary.json's PLT).
    var plt = METRICS.some(function (m) { return m.key === 'plt'; });
    return { metric: plt ? 'plt' : METRICS[0].key, base: META.baseline, arms: ARMS.filter(function (a) { return a !== META.baseline; }), f: {}, r: {} };
  }
  function readFragment() {
    var s = defaultState();
    var h = location.hash.replace(/^#/, '');
    if (!h) return s;
    h.split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i < 0) return;
      var key = decodeURIComponent(kv.slice(0, i));
      var vals = kv.slice(i + 1).split(',').map(decodeURIComponent);
      if (key === 'metric') s.metric = metricOf(vals[0]).key;
      else if (key === 'baseline') { if (ARMS.indexOf(vals[0]) >= 0) s.base = vals[0]; }
      else if (key === 'arms') s.arms = vals.filter(function (a) { return ARMS.indexOf(a) >= 0; });
      else if (key === 'bench') s.bench = Number(vals[0]) || 0;
      else if (RANGES.some(function (r) { return r.key === key; })) {
        var lh = vals[0].split('..');
        s.r[key] = [lh[0] === '' ? null : Number(lh[0]), lh.length > 1 && lh[1] !== '' ? Number(lh[1]) : null];
      } else if (DIMS.some(function (d) { return d.key === key; })) {
        s.f[key] = vals.filter(function (x) { return x !== ''; });
      }
    });
    s.arms = s.arms.filter(function (a) { return a !== s.base; });
    return s;
  }
  function fragment(s) {
    var e = encodeURIComponent;
    var parts = ['metric=' + e(s.metric), 'baseline=' + e(s.base), 'arms=' + s.arms.map(e).join(',')];
    DIMS.forEach(function (d) {
      if (s.f[d.key] && s.f[d.key].length) parts.push(e(d.key) + '=' + s.f[d.key].map(e).join(','));
    });
    RANGES.forEach(function (r) {
      var v = s.r[r.key];
      if (v && (v[0] !== null || v[1] !== null)) {
        parts.push(e(r.key) + '=' + (v[0] === null ? '' : v[0]) + '..' + (v[1] === null ? '' : v[1]));
      }
    });
    return '#' + parts.join('&');
  }

  // ---------- the slice
  function selection(s) {
    var tests = [];
    DIMS.forEach(function (d) {
      var chosen = s.f[d.key];
      if (!chosen || !chosen.length) return;
      var ok = new Uint8Array(d.values.length);
      chosen.forEach(function (v) { var i = d.values.indexOf(v); if (i >= 0) ok[i] = 1; });
      tests.push({ codes: COLS[d.col], ok: ok });
    });
    var ranges = [];
    RANGES.forEach(function (r) {
      var v = s.r[r.key];
      if (!v || (v[0] === null && v[1] === null)) return;
      ranges.push({ vals: COLS[r.col], lo: v[0] === null ? -Infinity : v[0] * r.scale, hi: v[1] === null ? Infinity : v[1] * r.scale });
    });
    var out = new Int32Array(N), m = 0;
    outer: for (var p = 0; p < N; p++) {
      for (var t = 0; t < tests.length; t++) {
        var c = tests[t].codes[p];
        if (c >= tests[t].ok.length || !tests[t].ok[c]) continue outer;
      }
      for (var q = 0; q < ranges.length; q++) {
        var x = ranges[q].vals[p];
        if (!(x >= ranges[q].lo && x <= ranges[q].hi)) continue outer;
      }
      out[m++] = p;
    }
    return out.subarray(0, m);
  }
  // Sorted values of one arm over the selected paths.
  function armValues(metric, a, sel) {
    var buf = new Float64Array(sel.length), m = 0, base = a * N;
    for (var i = 0; i < sel.length; i++) {
      var p = sel[i];
      if (metric.paired && !metric.paired[p]) continue;
      var v = metric.vals[base + p];
      if (isFinite(v)) buf[m++] = v;
    }
    return buf.subarray(0, m).sort();
  }

  // ---------- compute
  function compute(s) {
    var metric = metricOf(s.metric);
    var sel = selection(s);
    var shown = [s.base].concat(s.arms);
    var data = {};
    shown.forEach(function (arm) { data[arm] = armValues(metric, ARMS.indexOf(arm), sel); });
    var delta = metric.loss ? function (a, b) { return a - b; } : function (a, b) { return 100 * (a / b - 1); };
    var baseQ = PROBS.map(function (p) { return quantile(data[s.base], p); });
    var curves = s.arms.filter(function (a) { return data[a].length > 0; }).map(function (arm) {
      return { arm: arm, pts: PROBS.map(function (p, i) { return delta(quantile(data[arm], p), baseQ[i]); }) };
    });
    return { metric: metric, sel: sel, data: data, shown: shown, curves: curves, delta: delta };
  }

  // ---------- drawing
  var W = 760, H = 380, ML = 60, MR = 16, MT = 14, MB = 46;
  function colour(arm) {
    var i = META.colour_order.indexOf(arm);
    return META.colours[(i < 0 ? 0 : i) % META.colours.length];
  }
  function niceStep(span, ticks) {
    var raw = span / ticks, mag = Math.pow(10, Math.floor(Math.log10(raw))), f = raw / mag;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
  }
  function fmt(v, d) { return isFinite(v) ? v.toFixed(d) : '–'; }
  function signed(v, d, unit) { return isFinite(v) ? (v > 0 ? '+' : '') + v.toFixed(d) + unit : '–'; }
  function chartSvg(view, s, bands) {
    var lo = 0, hi = 0;
    view.curves.forEach(function (c, ci) {
      c.pts.forEach(function (v, i) {
        if (isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
        var b = bands && bands[ci];
        if (b && isFinite(b.lo[i])) { lo = Math.min(lo, b.lo[i]); hi = Math.max(hi, b.hi[i]); }
      });
    });
    if (hi - lo < 1e-9) { lo -= 1; hi += 1; }
    var step = niceStep(hi - lo, 6);
    lo = Math.floor(lo / step) * step; hi = Math.ceil(hi / step) * step;
    var X = function (p) { return ML + (W - ML - MR) * p / 100; };
    var Y = function (v) { return MT + (H - MT - MB) * (hi - v) / (hi - lo); };
    var o = ['<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ' + W + ' ' + H + '" role="img" aria-label="percentile versus change chart">'];
    o.push('<rect x="0" y="0" width="' + W + '" height="' + H + '" fill="#fff"/>');
    for (var v = lo; v <= hi + step / 2; v += step) {
      var y = Y(v).toFixed(1), zero = Math.abs(v) < step / 2;
      o.push('<line x1="' + ML + '" x2="' + (W - MR) + '" y1="' + y + '" y2="' + y + '" stroke="' + (zero ? '#555' : '#e3e5e8') + '" stroke-width="' + (zero ? 1.5 : 1) + '"/>');
      o.push('<text x="' + (ML - 6) + '" y="' + y + '" dy="4" text-anchor="end">' + esc(+v.toFixed(6)) + '</text>');
    }
    for (var p = 0; p <= 100; p += 10) {
      var x = X(p).toFixed(1);
      o.push('<line x1="' + x + '" x2="' + x + '" y1="' + MT + '" y2="' + (H - MB) + '" stroke="#eef0f2"/>');
      o.push('<text x="' + x + '" y="' + (H - MB + 16) + '" text-anchor="middle">' + p + '</text>');
    }
    o.push('<text x="' + ((ML + W - MR) / 2) + '" y="' + (H - 8) + '" text-anchor="middle">percentile</text>');
    var yl = view.metric.loss ? 'Δ ' + view.metric.label + ' (percentage points)' : 'Δ ' + view.metric.label + ' vs ' + s.base + ' (%)';
    o.push('<text transform="translate(14 ' + ((MT + H - MB) / 2) + ') rotate(-90)" text-anchor="middle">' + esc(yl) + '</text>');
    view.curves.forEach(function (c, ci) {
      var col = colour(c.arm), b = bands && bands[ci];
      if (b) {
        var up = [], down = [];
        PROBS.forEach(function (q, i) {
          if (isFinite(b.lo[i]) && isFinite(b.hi[i])) {
            up.push(X(q * 100).toFixed(1) + ',' + Y(b.hi[i]).toFixed(1));
            down.push(X(q * 100).toFixed(1) + ',' + Y(b.lo[i]).toFixed(1));
          }
        });
        o.push('<polygon class="band" data-arm="' + esc(c.arm) + '" points="' + up.concat(down.reverse()).join(' ') + '" fill="' + col + '" fill-opacity="0.18" stroke="none"/>');
      }
      var pts = [];
      c.pts.forEach(function (v, i) { if (isFinite(v)) pts.push(X(PROBS[i] * 100).toFixed(1) + ',' + Y(v).toFixed(1)); });
      o.push('<polyline class="curve" data-arm="' + esc(c.arm) + '" points="' + pts.join(' ') + '" fill="none" stroke="' + col + '" stroke-width="2"/>');
    });
    o.push('</svg>');
    return o.join('');
  }
  function legend(view) {
    return view.curves.map(function (c) {
      return '<span class="ex-key"><i style="background:' + colour(c.arm) + '"></i>' + esc(c.arm) + ' (n = ' + view.data[c.arm].length + ')</span>';
    }).join(' ');
  }
  function tableHtml(view, s) {
    var m = view.metric, d = m.loss ? 2 : 1, unit = m.loss ? '%' : ' ms';
    var dunit = m.loss ? ' pp' : '%';
    var h = ['<table class="arms ex-table"><thead><tr><th>' + esc(m.label) + '</th>'];
    view.shown.forEach(function (arm, i) {
      h.push('<th>' + esc(arm) + (i === 0 ? ' (baseline)' : '') + '</th>');
      if (i > 0) h.push('<th>Δ ' + esc(arm) + '</th>');
    });
    h.push('</tr></thead><tbody>');
    var stats = view.shown.map(function (arm) { return view.data[arm]; });
    function row(name, label, f, deltaOf) {
      h.push('<tr data-row="' + name + '"><th scope="row">' + label + '</th>');
      var b = f(stats[0]);
      view.shown.forEach(function (arm, i) {
        var v = f(stats[i]);
        h.push('<td data-arm="' + esc(arm) + '" data-k="v">' + (name === 'n' ? String(v) : fmt(v, d) + (isFinite(v) ? unit : '')) + '</td>');
        if (i > 0) {
          var dv = deltaOf ? deltaOf(stats[i], stats[0], v, b) : NaN;
          h.push('<td data-arm="' + esc(arm) + '" data-k="d">' + signed(dv, d, dunit) + '</td>');
        }
      });
      h.push('</tr>');
    }
    var ch = m.loss ? function (a, b, v, bv) { return v - bv; } : function (a, b, v, bv) { return change(v, bv); };
    row('n', m.loss ? 'connections that sent a packet' : 'paths (completed in every arm)', function (x) { return x.length; }, null);
    row('mean', m.loss ? 'average' : 'mean', mean, ch);
    ROWS.forEach(function (p) { row('p' + p, 'p' + p, function (x) { return quantile(x, p / 100); }, ch); });
    if (!m.loss) {
      row('avg-delta', 'avg Δ over p5, p15, …, p95', function () { return NaN; }, function (a, b) {
        var sum = 0;
        STEPS.forEach(function (p) { sum += change(quantile(a, p / 100), quantile(b, p / 100)); });
        return sum / STEPS.length;
      });
    }
    h.push('</tbody></table>');
    return h.join('');
  }

  // ---------- bands (asynchronous, chunked; a newer redraw cancels)
  var bandJob = 0;
  function startBands(view, s, els) {
    var job = ++bandJob;
    var bs = META.bootstrap;
    var base = view.data[s.base];
    var jobs = view.curves.map(function (c) {
      var f = fnv1a(['', c.arm, s.base]);
      return { xs: view.data[c.arm], rng: new Rng((bs.seed_hi ^ f[0]) >>> 0, (bs.seed_lo ^ f[1]) >>> 0), reps: PROBS.map(function () { return []; }), done: 0 };
    });
    var maxN = Math.max.apply(null, [base.length].concat(jobs.map(function (j) { return j.xs.length; })));
    var counts = new Uint32Array(maxN), qa = new Float64Array(PROBS.length), qb = new Float64Array(PROBS.length);
    var ji = 0;
    root.setAttribute('data-band', 'computing');
    function tick() {
      if (job !== bandJob) return;
      var t0 = performance.now();
      while (ji < jobs.length && performance.now() - t0 < 30) {
        var j = jobs[ji];
        resampleQuantiles(j.xs, j.rng, counts, qa);
        resampleQuantiles(base, j.rng, counts, qb);
        for (var k = 0; k < PROBS.length; k++) {
          var dv = view.delta(qa[k], qb[k]);
          if (isFinite(dv)) j.reps[k].push(dv);
        }
        if (++j.done === bs.resamples) ji++;
      }
      var total = jobs.length * bs.resamples, done = 0;
      jobs.forEach(function (j) { done += j.done; });
      if (ji < jobs.length) {
        els.band.textContent = 'Computing the ' + Math.round(bs.level * 100) + ' % bootstrap band: ' + done + ' of ' + total + ' resamples…';
        setTimeout(tick, 0);
        return;
      }
      var a = (1 - bs.level) / 2;
      var bands = jobs.map(function (j, ci) {
        var lo = [], hi = [];
        j.reps.forEach(function (r, i) {
          var sorted = Float64Array.from(r).sort();
          var d = view.curves[ci].pts[i];
          lo.push(sorted.length ? quantile(sorted, a) : d);
          hi.push(sorted.length ? quantile(sorted, 1 - a) : d);
        });
        return { lo: lo, hi: hi };
      });
      els.chart.innerHTML = chartSvg(view, s, bands);
      els.band.textContent = 'Shaded: ' + Math.round(bs.level * 100) + ' % percentile-bootstrap band, ' + bs.resamples +
        ' resamples of each arm and of the baseline (connections resampled independently), seeded as the static charts are.';
      var p50 = bands.map(function (b, ci) { return view.curves[ci].arm + ':' + b.lo[49] + ':' + b.hi[49]; });
      root.setAttribute('data-band-p50', p50.join('|'));
      root.setAttribute('data-band', 'done');
    }
    setTimeout(tick, 0);
  }

  // ---------- controls
  var els = {};
  function option(v, sel, label) {
    return '<option value="' + esc(v) + '"' + (sel ? ' selected' : '') + '>' + esc(label === undefined ? v : label) + '</option>';
  }
  function buildControls() {
    var h = ['<div class="ex-controls">'];
    h.push('<label>metric <select id="ex-metric">' + METRICS.map(function (m) { return option(m.key, m.key === state.metric, m.label); }).join('') + '</select></label>');
    h.push('<label>baseline <select id="ex-base">' + ARMS.map(function (a) { return option(a, a === state.base); }).join('') + '</select></label>');
    h.push('<fieldset id="ex-arms"><legend>arms</legend>' + ARMS.map(function (a) {
      return '<label><input type="checkbox" value="' + esc(a) + '"' + (state.arms.indexOf(a) >= 0 ? ' checked' : '') + (a === state.base ? ' disabled' : '') + '> ' + esc(a) + '</label>';
    }).join(' ') + '</fieldset>');
    h.push('<button type="button" id="ex-reset">reset filters</button></div><div class="ex-filters">');
    DIMS.forEach(function (d) {
      if (d.values.length < 2) return;
      var chosen = state.f[d.key] || [];
      h.push('<label class="ex-dim">' + esc(d.label) + '<select multiple data-dim="' + esc(d.key) + '" size="' + Math.min(d.values.length, 6) + '">' +
        d.values.map(function (v) { return option(v, chosen.indexOf(v) >= 0); }).join('') + '</select></label>');
    });
    RANGES.forEach(function (r) {
      var v = state.r[r.key] || [null, null];
      h.push('<label class="ex-range">' + esc(r.label) + '<span><input type="number" step="any" data-range="' + esc(r.key) + '" data-end="0" placeholder="min" value="' + (v[0] === null ? '' : v[0]) + '"> – ' +
        '<input type="number" step="any" data-range="' + esc(r.key) + '" data-end="1" placeholder="max" value="' + (v[1] === null ? '' : v[1]) + '"></span></label>');
    });
    h.push('</div><p class="note">A filter with nothing selected keeps every value; ctrl/⌘-click selects several.</p>');
    h.push('<p id="ex-status" class="ex-status" role="status"></p><p id="ex-empty" class="ex-empty" role="status" hidden></p>');
    h.push('<div id="ex-out"><figure class="ex-chart" id="ex-chart"></figure><p id="ex-legend" class="ex-legend"></p><p id="ex-band" class="note"></p><div id="ex-table"></div></div>');
    root.innerHTML = h.join('');
    ['status', 'empty', 'out', 'chart', 'legend', 'band', 'table'].forEach(function (k) { els[k] = document.getElementById('ex-' + k); });
    root.addEventListener('change', onInput);
    root.addEventListener('input', function (e) { if (e.target.type === 'number') onInput(); });
    document.getElementById('ex-reset').addEventListener('click', function () {
      state.f = {}; state.r = {};
      buildControls(); update();
    });
  }
  function onInput() {
    var s = { metric: document.getElementById('ex-metric').value, base: document.getElementById('ex-base').value, arms: [], f: {}, r: {} };
    var boxes = root.querySelectorAll('#ex-arms input');
    for (var i = 0; i < boxes.length; i++) if (boxes[i].checked && boxes[i].value !== s.base) s.arms.push(boxes[i].value);
    var sels = root.querySelectorAll('select[data-dim]');
    for (i = 0; i < sels.length; i++) {
      var chosen = [];
      for (var j = 0; j < sels[i].options.length; j++) if (sels[i].options[j].selected) chosen.push(sels[i].options[j].value);
      if (chosen.length) s.f[sels[i].getAttribute('data-dim')] = chosen;
    }
    var ins = root.querySelectorAll('input[data-range]');
    for (i = 0; i < ins.length; i++) {
      var key = ins[i].getAttribute('data-range');
      var r = s.r[key] || (s.r[key] = [null, null]);
      var v = ins[i].value === '' ? null : Number(ins[i].value);
      r[Number(ins[i].getAttribute('data-end'))] = v !== null && isFinite(v) ? v : null;
    }
    var baseChanged = s.base !== state.base;
    state = s;
    if (baseChanged) buildControls();
    update();
  }
  function describe(s) {
    var parts = [];
    DIMS.forEach(function (d) { if (s.f[d.key] && s.f[d.key].length) parts.push(d.label + ' = ' + s.f[d.key].join(' or ')); });
    RANGES.forEach(function (r) {
      var v = s.r[r.key];
      if (v && v[0] !== null) parts.push(r.label + ' ≥ ' + v[0]);
      if (v && v[1] !== null) parts.push(r.label + ' ≤ ' + v[1]);
    });
    return parts.length ? parts.join(', ') : 'no filter';
  }

  // ---------- redraw
  function redraw(s) {
    var t0 = performance.now();
    var view = compute(s);
    var base = view.data[s.base];
    var empty = base.length === 0 || view.curves.length === 0;
    els.status.textContent = view.sel.length + ' of ' + N + ' paths match (' + describe(s) + ').';
    if (empty) {
      bandJob++;
      els.out.hidden = true;
      els.empty.hidden = false;
      els.empty.textContent = 'No connections match these filters' +
        (s.arms.length === 0 ? ' (no arm is selected besides the baseline)' : ' in ' + (base.length === 0 ? 'the baseline ' + s.base : 'the selected arms')) +
        ': ' + describe(s) + '. Widen or reset a filter.';
      root.setAttribute('data-empty', '1');
      root.setAttribute('data-band', 'none');
    } else {
      els.out.hidden = false;
      els.empty.hidden = true;
      root.setAttribute('data-empty', '0');
      els.chart.innerHTML = chartSvg(view, s, null);
      els.legend.innerHTML = legend(view);
      els.table.innerHTML = tableHtml(view, s);
    }
    void root.offsetHeight; // the layout is part of the redraw
    var ms = performance.now() - t0;
    root.setAttribute('data-redraw-ms', ms.toFixed(1));
    return { view: view, empty: empty, ms: ms };
  }
  function update() {
    var target = fragment(state);
    if (location.hash !== target) history.replaceState(null, '', target);
    var r = redraw(state);
    if (!r.empty) startBands(r.view, state, els);
  }
  // Redraw timing: `bench=K` in the fragment redraws K times, alternating
  // between no filter and the linked view, and records the times.
  function bench(k) {
    var times = [], keep = state;
    for (var i = 0; i < k; i++) {
      var s = i % 2 === 0 ? { metric: keep.metric, base: keep.base, arms: keep.arms, f: {}, r: {} } : keep;
      times.push(redraw(s).ms);
    }
    var sorted = Float64Array.from(times).sort();
    root.setAttribute('data-bench-ms', times.map(function (t) { return t.toFixed(1); }).join(','));
    root.setAttribute('data-bench-median-ms', quantile(sorted, 0.5).toFixed(1));
    root.setAttribute('data-bench-max-ms', sorted[sorted.length - 1].toFixed(1));
  }

  function start() {
    var t0 = performance.now();
    var bin = atob(document.getElementById('explorer-data').textContent.trim());
    if (bin.length !== META.bytes) throw new Error('explorer data: ' + bin.length + ' bytes, expected ' + META.bytes);
    var bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error('explorer: needs a little-endian machine');
    META.columns.forEach(function (c) { COLS[c.name] = column(bytes.buffer, c); });
    DIMS.forEach(function (d) { d.codes = COLS[d.col]; });
    setupMetrics();
    state = readFragment();
    buildControls();
    root.setAttribute('data-load-ms', (performance.now() - t0).toFixed(1));
    if (state.bench) bench(state.bench);
    update();
    window.addEventListener('hashchange', function () {
      // A link to a section (#explorer, #chart-ab) is not a view.
      if (location.hash === fragment(state) || location.hash.indexOf('=') < 0) return;
      state = readFragment(); buildControls(); update();
    });
    root.setAttribute('data-state', 'ready');
  }
  try {
    start();
  } catch (e) {
    root.setAttribute('data-state', 'failed');
    root.innerHTML = '<p class="ex-empty">The explorer could not start: ' + esc(e && e.message ? e.message : e) + '</p>';
  }
})();
