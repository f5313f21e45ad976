#!/usr/bin/env bash
# Runs the EBISU programs that build.sh made and prints one line per case:
#
#   ebisu kernel=j3d7pt prec=f32 shape=cube n=512 nx=512 ny=512 nz=512 depth=8 steps=8
#         launches=1 grid=8x16x1 time_ms=.. gcells_s=.. gpts_s=.. status=ok
#
#   bash benches/peers/ebisu/run.sh [BUILD_DIR]          (default /tmp/ebisu)
#
# Cases: kernel j3d7pt (3d7pt_ebisu.exe) and j3d27pt (3d27pt_ebisu.exe, 27-point box) x
# prec f32 (--fp32) and f64 x the shapes in EBISU_SHAPES (default all five):
#   cube512   512^3                     cube1024  1024^3
#   vol512    same cell count as 512^3 with an x-y plane EBISU can run (f32: = cube512,
#             skipped as a duplicate; f64: 512 x 256 x 1024)
#   vol1024   same cell count as 1024^3 (f32: 512 x 512 x 4096; f64: 512 x 256 x 8192)
#   paper     EBISU's own --experiment domain (12 x 9 tiles = A100's 108 SMs; 2560 high)
# EBISU's 3-D kernels are one cooperative launch whose blocks each own one x-y tile (f32
# 64x32, f64 32x32) and stream along z with a grid-wide sync per plane, one block per SM
# (>= 238 registers x 256 threads): a case whose (nx/TX)*(ny/TY) exceeds the SM count cannot
# run. Such cases print status=unsupported without being run (EBISU_FORCE=1 runs them).
#
# Each case is timed as EBISU's --experiment mode does (the setting of its ICS'23 numbers):
# warm-up, then ONE kernel launch of `depth` time steps timed with CUDA events. Fields:
#   depth     EBISU's temporal-blocking depth = time steps fused per launch (compile-time,
#             common/temporalconfig.cuh: 7pt 8 (f32, f64); box 6 (f32), 5 (f64))
#   steps     time steps timed (= depth x launches); time_ms its event time
#   gcells_s  EBISU's own figure: (nx-2)(ny-2)(nz-2) x steps / time (interior cells only)
#   gpts_s    nx*ny*nz x steps / time: every point is updated each step (faces clamped),
#             so this is the like-for-like figure for our GPts/s (points x steps / s)
#   status    ok | unsupported | error | check_failed ; reason= says why when not ok
# Environment:
#   EBISU_SHAPES           shapes to run (default "cube512 cube1024 vol512 vol1024 paper")
#   EBISU_KERNELS, EBISU_PRECS   default "j3d7pt j3d27pt", "f32 f64"
#   EBISU_LAUNCHES=K       K timed launches (--warmup --iter=K*depth) instead of --experiment
#   EBISU_WARMUP_LAUNCHES  warm-up launches (default here 100; upstream 1000, then repeated
#                          until >= 350 ms; set 1000 for upstream's exact warm-up)
#   EBISU_CHECK=1          also --check (CPU reference, single thread: minutes per case)
#   EBISU_TIMEOUT          seconds per case (default 300; 3600 with EBISU_CHECK=1)
#   EBISU_FORCE=1          run the cases predicted unsupported too
# The raw output of each case is kept in BUILD_DIR/logs/. Always exits 0 once started.
set -uo pipefail

root="${1:-/tmp/ebisu}"
bin="$root/bin"
logs="$root/logs"
mkdir -p "$logs"
shapes="${EBISU_SHAPES:-cube512 cube1024 vol512 vol1024 paper}"
kernels="${EBISU_KERNELS:-j3d7pt j3d27pt}"
precs="${EBISU_PRECS:-f32 f64}"
launches="${EBISU_LAUNCHES:-1}"
check="${EBISU_CHECK:-0}"
force="${EBISU_FORCE:-0}"
if [ "$check" = 1 ]; then timeout_s="${EBISU_TIMEOUT:-3600}"; else timeout_s="${EBISU_TIMEOUT:-300}"; fi
export EBISU_WARMUP_LAUNCHES="${EBISU_WARMUP_LAUNCHES:-100}"

for e in 3d7pt_ebisu.exe 3d27pt_ebisu.exe; do
  [ -x "$bin/$e" ] || { echo "run.sh: $bin/$e missing: run build.sh $root first" >&2; exit 1; }
done

sms=""
if info="$("$bin/devinfo" 2>&1)"; then
  sms="$(sed -n 's/.*sms=\([0-9]*\).*/\1/p' <<<"$info")"
  echo "# ebisu device: $info"
else
  echo "# ebisu: devinfo failed ($info): cases are run without the feasibility check"
fi
echo "# ebisu settings: warmup_launches=$EBISU_WARMUP_LAUNCHES launches=$launches check=$check timeout_s=$timeout_s"

n_ok=0; n_err=0; n_uns=0

emit() { echo "ebisu $*"; }

for kernel in $kernels; do
  case "$kernel" in
    j3d7pt) exe=3d7pt_ebisu.exe ;;
    j3d27pt) exe=3d27pt_ebisu.exe ;;
    *) echo "run.sh: unknown kernel $kernel" >&2; continue ;;
  esac
  for prec in $precs; do
    # tile (common/iptconfig.cuh: tile_x, ipt*256/tile_x) and depth (temporalconfig.cuh)
    if [ "$prec" = f32 ]; then tx=64; ty=32; pflag=--fp32; else tx=32; ty=32; pflag=; fi
    case "$kernel/$prec" in
      j3d7pt/*) depth=8 ;;
      j3d27pt/f32) depth=6 ;;
      j3d27pt/f64) depth=5 ;;
    esac
    for shape in $shapes; do
      case "$shape/$prec" in
        cube512/*) nx=512; ny=512; nz=512; n=512; sh=cube ;;
        cube1024/*) nx=1024; ny=1024; nz=1024; n=1024; sh=cube ;;
        vol512/f32) continue ;;  # 512x512 fits: identical to cube512
        vol512/f64) nx=512; ny=256; nz=1024; n=512; sh=volume ;;
        vol1024/f32) nx=512; ny=512; nz=4096; n=1024; sh=volume ;;
        vol1024/f64) nx=512; ny=256; nz=8192; n=1024; sh=volume ;;
        paper/*) nx=$((12 * tx)); ny=$((9 * ty)); nz=2560; n=na; sh=paper ;;
        *) echo "run.sh: unknown shape $shape" >&2; continue ;;
      esac
      id="kernel=$kernel prec=$prec shape=$sh n=$n nx=$nx ny=$ny nz=$nz"
      tiles=$(( (nx / tx) * (ny / ty) ))
      if [ $((nx % tx)) -ne 0 ] || [ $((ny % ty)) -ne 0 ]; then
        emit "$id depth=$depth status=unsupported reason=nx,ny_not_multiples_of_tile_${tx}x${ty}"
        n_uns=$((n_uns + 1)); continue
      fi
      if [ -n "$sms" ] && [ "$tiles" -gt "$sms" ] && [ "$force" != 1 ]; then
        emit "$id depth=$depth status=unsupported reason=xy_tiles_${tiles}_exceed_${sms}_SMs(cooperative_launch,1_block/SM)"
        n_uns=$((n_uns + 1)); continue
      fi
      if [ "$launches" = 1 ]; then
        mode=(--experiment)
      else
        mode=(--warmup --bdim=256 "--iter=$((launches * depth))")
      fi
      args=("$nx" "$ny" "$nz" "${mode[@]}")
      [ -n "$pflag" ] && args+=("$pflag")
      [ "$check" = 1 ] && args+=(--check)
      log="$logs/${kernel}_${prec}_${nx}x${ny}x${nz}.log"
      echo "# cmd: EBISU_WARMUP_LAUNCHES=$EBISU_WARMUP_LAUNCHES timeout $timeout_s $bin/$exe ${args[*]}"
      t0=$(date +%s)
      timeout -k 10 "$timeout_s" "$bin/$exe" "${args[@]}" > "$log" 2>&1
      rc=$?
      wall=$(( $(date +%s) - t0 ))
      # EBISU's result line (common PrintHelper, non-verbose): tab-separated
      # ptx dtype nx ny nz iteration depth bdim ilp <gx,gy,gz> blk/SM smem smrange ms GCells/s
      res="$(awk -F'\t' 'NF >= 15 && $10 ~ /^</ { print; exit }' "$log")"
      rms="$(sed -n 's/^\[Test\] RMS Error : \([^ ]*\).*/\1/p' "$log" | head -1)"
      cudaerr="$(grep -m1 -E 'Cuda failure|CUDA-ERROR' "$log" | tr -s ' \t' '__' | tr -d "'\"")"
      extra=""; [ -n "$rms" ] && extra=" rms=$rms"
      if [ -n "$res" ]; then
        line="$(awk -F'\t' -v nx="$nx" -v ny="$ny" -v nz="$nz" -v L="$launches" '{
            g = $10; gsub(/[<>]/, "", g); gsub(/,/, "x", g);
            ms = $14 + 0; steps = $6 + 0;
            gp = (ms > 0) ? nx * ny * nz * steps / (ms * 1e6) : 0;
            printf "depth=%d steps=%d launches=%d grid=%s time_ms=%.4f gcells_s=%.2f gpts_s=%.2f",
                   $7, steps, L, g, ms, $15 + 0, gp }' <<<"$res")"
        got_depth="$(awk -F'\t' '{ print $7 }' <<<"$res")"
        if [ "$rc" -eq 0 ] && [ -z "$cudaerr" ]; then
          [ "$got_depth" != "$depth" ] && extra="$extra note=depth_${got_depth}_not_${depth}"
          emit "$id $line$extra wall_s=$wall status=ok"; n_ok=$((n_ok + 1))
        elif [ -n "$cudaerr" ]; then
          emit "$id $line$extra wall_s=$wall status=error reason=$cudaerr"; n_err=$((n_err + 1))
        elif [ "$check" = 1 ] && [ "$rc" -eq 255 ]; then
          emit "$id $line$extra wall_s=$wall status=check_failed reason=rms_above_1e-5"; n_err=$((n_err + 1))
        else
          emit "$id $line$extra wall_s=$wall status=error reason=exit_code_$rc"; n_err=$((n_err + 1))
        fi
      else
        reason="no_result_line_rc_$rc"
        [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && reason="timeout_${timeout_s}s"
        [ -n "$cudaerr" ] && reason="$cudaerr"
        emit "$id depth=$depth wall_s=$wall status=error reason=$reason log=$log"
        n_err=$((n_err + 1))
      fi
    done
  done
done
echo "ebisu-summary ok=$n_ok error=$n_err unsupported=$n_uns"
exit 0
