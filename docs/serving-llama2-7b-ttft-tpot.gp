# ridge 0.1.0 curve chart
# Render with: gnuplot docs/serving-llama2-7b-ttft-tpot.gp  (reads serving-llama2-7b-ttft-tpot.dat, writes serving-llama2-7b-ttft-tpot.png; from any directory)
set encoding utf8
set locale "C"

# Files are named relative to this script's directory.
dir = ''
if (exists('ARG0')) {
    s = ARG0
    while (strstrt(s, '/') > 0) {
        i = strstrt(s, '/')
        dir = dir . s[1:i]
        s = s[i+1:]
    }
}
dat = dir . 'serving-llama2-7b-ttft-tpot.dat'

if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,1110 noenhanced font 'Sans,12' background '#ffffff'
} else {
    set terminal png size 1000,1110 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'serving-llama2-7b-ttft-tpot.png'
}

set xlabel 'Offered load [requests/s]'
set xrange [0:*]
set format x '%g'
set format y '%g'
set grid xtics ytics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set key at graph 0.02, graph 0.90 left top vertical Left reverse box opaque samplen 4 spacing 1.1 font ',11' width 1
set logscale y 10
set mytics 10
set lmargin 12
set rmargin 4
set multiplot layout 3,1 title 'llama2-7b (bf16): latency, TTFT and TPOT against load, continuous batching (max 256)' font ',14'

# ---- panel 0 ----
unset arrow
unset label
set xlabel ''
set ylabel 'End-to-end latency [ms]'
set yrange [2000:45640.9]
set ytics (2000, 5000, 10000, 20000)
set arrow from 10.0000976, graph 0 to 10.0000976, graph 1 nohead dt 3 lw 1.5 lc rgb '#0072B2'
set label 'a100-sxm4-80gb saturation 10/s' at 10.0000976, graph 0.97 right offset -0.5,0 font ',10' tc rgb '#0072B2'
set arrow from 18.7950208, graph 0 to 18.7950208, graph 1 nohead dt 3 lw 1.5 lc rgb '#D55E00'
set label 'h100-sxm5-80gb saturation 18.8/s' at 18.7950208, graph 0.97 right offset -0.5,0 font ',10' tc rgb '#D55E00'

plot \
    dat index 0 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb p99', \
    dat index 1 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb p50', \
    dat index 2 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb mean', \
    dat index 3 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb p99', \
    dat index 4 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb p50', \
    dat index 5 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb mean'

# ---- panel 1 ----
unset arrow
unset label
set xlabel ''
set ylabel 'Time to first token (TTFT) [ms]'
set yrange [20:10717.2]
set ytics (20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
set arrow from 10.0000976, graph 0 to 10.0000976, graph 1 nohead dt 3 lw 1.5 lc rgb '#0072B2'
set arrow from 18.7950208, graph 0 to 18.7950208, graph 1 nohead dt 3 lw 1.5 lc rgb '#D55E00'
set arrow from graph 0, first 1000 to graph 1, first 1000 nohead dt 4 lw 2 lc rgb '#b2182b' back
set label 'objective: TTFT p99 1000 ms' at graph 0.42, first 1000 left offset 0,0.6 font ',10' tc rgb '#b2182b' front

plot \
    dat index 6 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TTFT p99', \
    dat index 7 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TTFT p50', \
    dat index 8 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TTFT mean', \
    dat index 9 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TTFT p99', \
    dat index 10 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TTFT p50', \
    dat index 11 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TTFT mean'

# ---- panel 2 ----
unset arrow
unset label
set xlabel 'Offered load [requests/s]'
set ylabel 'Time per output token (TPOT) [ms]'
set yrange [10:137.414]
set ytics (10, 20, 50, 100)
set arrow from 10.0000976, graph 0 to 10.0000976, graph 1 nohead dt 3 lw 1.5 lc rgb '#0072B2'
set arrow from 18.7950208, graph 0 to 18.7950208, graph 1 nohead dt 3 lw 1.5 lc rgb '#D55E00'
set arrow from graph 0, first 60 to graph 1, first 60 nohead dt 4 lw 2 lc rgb '#b2182b' back
set label 'objective: TPOT p99 60 ms' at graph 0.42, first 60 left offset 0,0.6 font ',10' tc rgb '#b2182b' front

plot \
    dat index 12 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TPOT p99', \
    dat index 13 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TPOT p50', \
    dat index 14 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#0072B2' title 'a100-sxm4-80gb TPOT mean', \
    dat index 15 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TPOT p99', \
    dat index 16 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TPOT p50', \
    dat index 17 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#D55E00' title 'h100-sxm5-80gb TPOT mean'
unset multiplot
