# ridge 0.1.0 roofline chart: NVIDIA A40 vs NVIDIA A100 SXM4 80GB, bert-base: train, batch 32, bf16
# Render with: gnuplot docs/roofline-bert-base-a40-a100.gp  (reads roofline-bert-base-a40-a100.dat, writes roofline-bert-base-a40-a100.png; from any directory)
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
dat = dir . 'roofline-bert-base-a40-a100.dat'

if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
    set terminal pngcairo size 1200,850 noenhanced font 'Sans,11' background '#ffffff'
} else {
    set terminal png size 1200,850 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'roofline-bert-base-a40-a100.png'
}

set title 'Roofline: NVIDIA A40 vs NVIDIA A100 SXM4 80GB - bert-base: train, batch 32, bf16' . "\n" . 'a40: step 190.5 ms, 168 sequences/s; a100-sxm4-80gb: step 85.75 ms, 373.2 sequences/s' font ',14'
# The plot area is pinned so that the label positions in the .dat fit it.
set lmargin at screen 0.075
set rmargin at screen 0.975
set bmargin at screen 0.247059
set tmargin at screen 0.905882
set xlabel 'Arithmetic intensity [FLOP/byte]'
set ylabel 'Performance [TFLOP/s]'
set logscale xy 10
set xrange [0.1:10000]
set yrange [0.01:780]
set format x '%g'
set format y '%g'
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set style textbox opaque noborder margins 0.5,0.5
set key outside below center horizontal maxcols 3 samplen 3 spacing 1.1 font ',10'
set label 1 '4 ops without FLOPs (5.06 % of the step) not shown; listed in roofline-bert-base-a40-a100.dat' at graph 0.99, graph 0.03 right font ',9' tc rgb '#555555'
# The key: the largest kernels, numbered as beside their markers.
set label 2 'Largest kernels, share of the step (marker area): a40 | a100-sxm4-80gb' at graph 0.0120, graph 0.9625 left font ',9' tc rgb '#222222' boxed front
set label 3 '1  cross_entropy.bwd: 9.65 % dram | 8.02 % dram' at graph 0.0120, graph 0.9375 left font ',9' tc rgb '#222222' boxed front
set label 4 '2  attention: 7.17 % compute | 8.15 % compute' at graph 0.0120, graph 0.9125 left font ',9' tc rgb '#222222' boxed front
set label 5 '3  mlm_decoder: 5.43 % compute | 5.88 % compute' at graph 0.0120, graph 0.8875 left font ',9' tc rgb '#222222' boxed front
set label 6 '4  mlm_decoder.wgrad: 5.3 % compute | 5.65 % compute' at graph 0.0120, graph 0.8625 left font ',9' tc rgb '#222222' boxed front
set label 7 '5  mlm_decoder.dgrad: 5.28 % compute | 5.64 % compute' at graph 0.0120, graph 0.8375 left font ',9' tc rgb '#222222' boxed front

plot \
    dat index 0 every ::0::0 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 1 lc rgb '#222222' title 'a40 BF16 tensor: 150 TFLOP/s', \
    dat index 0 every ::1::1 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 1 lc rgb '#8c564b' title 'a40 FP32/FP16 vector: 37.4 TFLOP/s', \
    dat index 1 every ::0::0 using 3:5:($4-$3):($6-$5) with vectors nohead lw 2.5 dt 1 lc rgb '#1f77b4' title 'a40 DRAM 696 GB/s', \
    dat index 0 every ::2::2 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 4 lc rgb '#222222' title 'a100-sxm4-80gb BF16 tensor: 312 TFLOP/s', \
    dat index 0 every ::3::3 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 4 lc rgb '#e377c2' title 'a100-sxm4-80gb FP16 vector: 78 TFLOP/s', \
    dat index 0 every ::4::4 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 4 lc rgb '#8c564b' title 'a100-sxm4-80gb FP32 vector: 19.5 TFLOP/s', \
    dat index 1 every ::3::3 using 3:5:($4-$3):($6-$5) with vectors nohead lw 2.5 dt 4 lc rgb '#1f77b4' title 'a100-sxm4-80gb DRAM 2.04 TB/s', \
    NaN with linespoints lw 2 dt 1 pt 7 ps 1.2 lc rgb '#555555' title 'a40: roofs solid, kernels circles', \
    NaN with linespoints lw 2 dt 4 pt 9 ps 1.2 lc rgb '#555555' title 'a100-sxm4-80gb: roofs dash-dot, kernels triangles', \
    dat index 2 using 1:2 with points pt 7 ps 0.8 lc rgb '#222222' notitle, \
    dat index 2 using 3:(strcol(5) eq 'l' ? $4 : NaN):6 with labels left boxed font ',9' tc rgb '#222222' notitle, \
    dat index 2 using 3:(strcol(5) eq 'r' ? $4 : NaN):6 with labels right boxed font ',9' tc rgb '#222222' notitle, \
    dat index 3 using 1:($3 == 0 && $6 == 0 ? $2 : NaN):8 with points pt 7 ps variable lc rgb '#50d62728' notitle, \
    dat index 3 using 1:($3 == 0 && $6 == 0 ? $2 : NaN):8 with points pt 6 ps variable lw 1 lc rgb '#d62728' notitle, \
    dat index 3 using 1:($3 == 1 && $6 == 0 ? $2 : NaN):8 with points pt 7 ps variable lc rgb '#501f77b4' notitle, \
    dat index 3 using 1:($3 == 1 && $6 == 0 ? $2 : NaN):8 with points pt 6 ps variable lw 1 lc rgb '#1f77b4' notitle, \
    dat index 3 using 1:($3 == 3 && $6 == 0 ? $2 : NaN):8 with points pt 7 ps variable lc rgb '#50ff7f0e' notitle, \
    dat index 3 using 1:($3 == 3 && $6 == 0 ? $2 : NaN):8 with points pt 6 ps variable lw 1 lc rgb '#ff7f0e' notitle, \
    dat index 3 using 1:($3 == 0 && $6 == 1 ? $2 : NaN):8 with points pt 9 ps variable lc rgb '#50d62728' notitle, \
    dat index 3 using 1:($3 == 0 && $6 == 1 ? $2 : NaN):8 with points pt 8 ps variable lw 1 lc rgb '#d62728' notitle, \
    dat index 3 using 1:($3 == 1 && $6 == 1 ? $2 : NaN):8 with points pt 9 ps variable lc rgb '#501f77b4' notitle, \
    dat index 3 using 1:($3 == 1 && $6 == 1 ? $2 : NaN):8 with points pt 8 ps variable lw 1 lc rgb '#1f77b4' notitle, \
    dat index 3 using 1:($3 == 3 && $6 == 1 ? $2 : NaN):8 with points pt 9 ps variable lc rgb '#50ff7f0e' notitle, \
    dat index 3 using 1:($3 == 3 && $6 == 1 ? $2 : NaN):8 with points pt 8 ps variable lw 1 lc rgb '#ff7f0e' notitle, \
    NaN with points pt 7 ps 1.2 lc rgb '#d62728' title 'predicted, compute-bound', \
    NaN with points pt 7 ps 1.2 lc rgb '#1f77b4' title 'predicted, DRAM-bound', \
    NaN with points pt 7 ps 1.2 lc rgb '#ff7f0e' title 'predicted, latency-bound', \
    dat index 4 using 5:6:($7-$5):($8-$6) with vectors nohead lw 0.8 lc rgb '#999999' notitle, \
    dat index 4 using 1:(strcol(3) eq 'l' ? $2 : NaN):4 with labels left boxed font ',9' tc rgb '#333333' notitle
