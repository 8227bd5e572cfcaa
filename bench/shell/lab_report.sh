#!/bin/sh
# Tables and charts of a TCP-vs-QUIC lab run (bench/shell/lab.sh):
#   OUT/medians.md     per rate x RTT: download time median (s) per stack
#                      and loss, with the min-max over the runs
#   OUT/lab-RATE-RTT.svg         loss-based: kernel TCP (HTTP/2), ramp QUIC
#   OUT/lab-RATE-RTT-bbr.svg     TCP BBR, QUIC BBRv3, simulated BBRv3
#   OUT/lab-RATE-RTT-sim.svg     the simulator's loss-based QUIC, same cells
#   OUT/lab-RATE-RTT-http1.svg   TCP over HTTP/1.1 vs HTTP/2, and without SACK
# each drawn by `ramp plot grid --axis loss` from the records of one cell
# (selected with ndq). Usage: bench/shell/lab_report.sh OUT
set -eu
cd "$(dirname "$0")/../.."
OUT=${1:?usage: lab_report.sh OUT}
if [ -z "${RAMP:-}" ]; then
    RAMP=${CARGO_TARGET_DIR:-target}/release/ramp
fi
NDQ=$(dirname "$RAMP")/ndq
REC=$OUT/records.ndjson

# Medians: one table per rate x RTT, rows = stack, columns = loss.
"$NDQ" --tsv 'select(_.completed != false) >>
    group_by([_["path.rate-bps"], _["path.rtt-ms"], _.group, _["path.loss"]]) {
        [median(_["ttlb-us"]), min(_["ttlb-us"]), max(_["ttlb-us"]), count()] }
    >> entries(_) >> flat >> [from_json(_[0]), _[1]].flatten' "$REC" \
    | awk -F'\t' '
    { rate = $1 / 1e6; rtt = $2; g = $3; l = $4 * 100
      cell = rate " Mbit/s, " rtt " ms RTT"
      if (!(cell in seen)) { seen[cell] = 1; cells[++nc] = cell }
      if (!((cell, g) in gs)) { gs[cell, g] = 1; grp[cell, ++ng[cell]] = g }
      if (!(l in ls)) { ls[l] = 1; loss[++nl] = l }
      v[cell, g, l] = sprintf("%.2f (%.2f–%.2f)", $5 / 1e6, $6 / 1e6, $7 / 1e6) }
    END {
      # losses ascending
      for (i = 1; i <= nl; i++) for (j = i + 1; j <= nl; j++)
          if (loss[j] < loss[i]) { t = loss[i]; loss[i] = loss[j]; loss[j] = t }
      for (c = 1; c <= nc; c++) {
          cell = cells[c]
          # rows by name: QUIC, then TCP, then sim
          for (i = 1; i <= ng[cell]; i++) for (j = i + 1; j <= ng[cell]; j++)
              if (grp[cell, j] < grp[cell, i]) { t = grp[cell, i]; grp[cell, i] = grp[cell, j]; grp[cell, j] = t }
          printf "\n%s, queue 1 BDP: download time, s, median (min–max)\n\n| stack |", cell
          for (i = 1; i <= nl; i++) printf " %g%% |", loss[i]
          printf "\n|---|"; for (i = 1; i <= nl; i++) printf "---|"; printf "\n"
          for (k = 1; k <= ng[cell]; k++) {
              g = grp[cell, k]; printf "| %s |", g
              for (i = 1; i <= nl; i++) { x = v[cell, g, loss[i]]; printf " %s |", (x == "" ? "—" : x) }
              printf "\n"
          }
      }
    }' > "$OUT/medians.md"
failed=$("$NDQ" 'select(_.completed == false) >> count()' "$REC")
echo "downloads that did not complete (left out of the medians): $failed" >> "$OUT/medians.md"

# Charts: one set per rate x RTT cell, at most six lines each (the
# charts' colour set), arms in name order.
chart() { # NAME SELECT TITLE
    "$NDQ" "$cell >> select($2) >> sort(_.group)" "$REC" > "$OUT/cell.ndjson"
    "$RAMP" plot grid "$OUT/cell.ndjson" --axis loss -o "$OUT/lab-$name$1.svg" --title "$3"
}
"$NDQ" --tsv 'distinct([_["path.rate-bps"], _["path.rtt-ms"]]) >> flat' "$REC" |
    while IFS="$(printf '\t')" read -r rate rtt; do
        name=$(awk -v r="$rate" -v t="$rtt" 'BEGIN {printf "%gm-%gms", r / 1e6, t}')
        cell="select(_[\"path.rate-bps\"] == $rate && _[\"path.rtt-ms\"] == $rtt)"
        chart "" '(_.stack == "tcp-h2" || _.stack == "quic") && _["cc.algorithm"] !~ /bbr/' \
            "Download time against loss: kernel TCP (HTTP/2) and ramp QUIC, lower is better"
        chart -bbr '_["cc.algorithm"] =~ /bbr/ && _.stack != "tcp-h1"' \
            "BBR: kernel TCP BBR (HTTP/2), ramp QUIC BBRv3 and the simulator's"
        chart -sim '_.stack == "sim" && _["cc.algorithm"] !~ /bbr/' \
            "The simulator's QUIC on the same paths and seeds"
        chart -http1 '_.stack =~ /^tcp/ && _["cc.algorithm"] !~ /bbr/' \
            "Kernel TCP: HTTP/1.1 and HTTP/2, and HTTP/1.1 without SACK"
    done
rm -f "$OUT/cell.ndjson"
cat "$OUT/medians.md"
