#!/bin/sh
# The ablation table of docs/results/rapid-start-2026.md: the seed experiment's 20 000
# connections (seed 1) on the seven built-in regions, adding one path or
# endpoint mechanism per row. Usage: bench/calibrate/ablation.sh RAMP OUTDIR
. "$(dirname "$0")/common.sh"
regions='[[region]]
name = "east-asia"
[[region]]
name = "se-asia"
[[region]]
name = "west-europe"
[[region]]
name = "east-europe"
[[region]]
name = "africa"
[[region]]
name = "north-america"
[[region]]
name = "south-america"
'
row() { # name, [paths] body, extra ramp arguments
  name=$1; paths=$2; shift 2
  printf '%s[paths]\n%s\n' "$regions" "$paths" > "$OUT/$name.toml"
  fleet_row "$name" "$@"
}
DRAFT02='baseline=newreno(iw=30,beta=0.7,ss_beta=0.5),jumpstart=newreno(iw=30,beta=0.7,ss_beta=0.5)+jumpstart(retreat_beta=ca),rapid-no-jump=newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart(jump=off),rapidstart=newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart'
# The seed arms before quicly's jump reactions (retreat_beta=ca, no jump_floor).
PREJUMP='baseline=newreno(iw=30,beta=0.7,ss_beta=0.5),jumpstart=newreno(iw=30,beta=0.7,ss_beta=0.5)+jumpstart(retreat_beta=ca),rapid-no-jump=newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart(jump=off,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4),rapidstart=newreno(iw=30,beta=0.7,ss_beta=0.5)+rapidstart(thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4)'
# quicly's jump reactions in, still RFC 9002's Reno growth.
QJUMP=$(printf '%s' "$PREJUMP" | sed 's/jumpstart(retreat_beta=ca)/jumpstart(retreat_beta=quicly)/; s/rapidstart(jump=off,/rapidstart(jump=off,jump_floor=on,/; s/rapidstart(thresh_mult/rapidstart(jump_floor=on,thresh_mult/')
# The seed arms as they were before quicly's pacer (ramp's leaky bucket at
# RFC 9002's 1.25x in congestion avoidance), and with quicly's pacer alone
# (its 2x after a loss left out).
SEEDARMS='baseline=newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico),jumpstart=newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)+jumpstart(retreat_beta=quicly),rapid-no-jump=newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump=off,jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4),rapidstart=newreno(iw=30,ca_gain=2,pacer=quicly,beta=0.7,ss_beta=0.5,growth=pico)+rapidstart(jump_floor=on,thresh_mult=1.09375,rtt_floor=slots,k=11/18,thresh=max,clock=ms,off_below_ms=4)'
PICO=$(printf '%s' "$SEEDARMS" | sed 's/ca_gain=2,pacer=quicly,//g')
QPACER_RATE125=$(printf '%s' "$SEEDARMS" | sed 's/ca_gain=2,//g')
ROWS=${ROWS:-"quicly jitter batching cellular draft02"}
ASSUMED='droptail_buffer = "assumed"'
for r in $ROWS; do
  case $r in
    draft02) row draft02 "" --arms "$DRAFT02" ;;
    quicly) row quicly "" ;;
    jitter) row jitter "wifi_jitter = true" ;;
    batching) row batching "wifi_jitter = true
ack_batching = true" ;;
    cellular) row cellular "wifi_jitter = true
ack_batching = true
cellular_share = 1.0" ;;
    # On the refitted model with population v2's assumed drop-tail buffers:
    prejump) row prejump "$ASSUMED" --arms "$PREJUMP" ;;
    quicly_jump) row quicly_jump "$ASSUMED" --arms "$QJUMP" ;;
    pico) row pico "$ASSUMED" --arms "$PICO" ;;   # + quicly's pico growth
    qpacer_burst) row qpacer_burst "$ASSUMED" --arms "$QPACER_RATE125" ;;  # + quicly's pacer, 1.25x in CA
    qpacer) row qpacer "$ASSUMED" ;;   # the seed arms: + quicly's 2x after a loss
    # The sourced buffer tables (docs/results/rapid-start-2026.md, "Buffer sources"):
    # drop-tail fixed buffers from the FCC MBA 2023 downstream queue under
    # load, then every fixed downlink as that measured queue (no assumed
    # AQM share on the fixed access; Wi-Fi hops keep theirs).
    mba) row mba 'droptail_buffer = "mba-2023"' ;;   # the fitted model now
    pico_mba) row pico_mba 'droptail_buffer = "mba-2023"' --arms "$PICO" ;;   # its arms before quicly's pacer
    mba_all) row mba_all 'droptail_buffer = "mba-2023"
fixed_aqm_share = 0.0' ;;
    # Sensitivity, not sourced for mobile: mobile paths queueing like the
    # measured fixed downlinks.
    mobile_mba) row mobile_mba 'droptail_buffer = "mba-2023"
mobile_buffer = "mba-2023"' ;;
    # Sensitivity, not sourced: every mobile bottleneck FQ-CoDel over its
    # deep buffer (a few drops per slow start instead of a tail overflow).
    mobile_aqm) row mobile_aqm 'mobile_aqm_share = 1.0' ;;
    ndt) # sensitivity: NDT single-flow rates as the bottleneck (capacity 1)
      saved=$regions
      regions="$(printf '%s' "$regions" | sed 's/^\(name = .*\)$/\1\ncapacity = { fixed = 1, mobile = 1 }/')
"
      row ndt "$ASSUMED" --arms "$QJUMP"
      regions=$saved ;;
  esac
done
