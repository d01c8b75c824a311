# ridge 0.1.0 scatter chart
# Render with: gnuplot docs/plan-llama2-7b-pareto.gp  (reads plan-llama2-7b-pareto.dat, writes plan-llama2-7b-pareto.png; from any directory)
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
dat = dir . 'plan-llama2-7b-pareto.dat'

if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
    set terminal pngcairo size 1000,700 noenhanced font 'Sans,12' background '#ffffff'
} else {
    set terminal png size 1000,700 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'plan-llama2-7b-pareto.png'
}

set title 'llama2-7b train, 1e+09 tokens: cost against time of the feasible configurations' . "\n" . '14 feasible of 140 configurations; circled, joined and labelled: the Pareto front' font ',14'
set xlabel 'Time to finish [h]'
set ylabel 'Cost [USD]'
set logscale x 10
set mxtics 10
set xrange [0.22871472:30.2530107]
set yrange [74.193031:88.5204035]
set lmargin at screen 0.0900
set rmargin at screen 0.9800
set tmargin at screen 0.8857
set bmargin at screen 0.1714
set label 'h200 ×64, batch 2' at graph 0.0862, graph 0.3023 left font ',10' tc rgb '#222222' front
set label 'h200 ×32, batch 2' at graph 0.2107, graph 0.2107 center font ',10' tc rgb '#222222' front
set label 'h200 ×16, batch 2' at graph 0.3522, graph 0.2863 center font ',10' tc rgb '#222222' front
set label 'h200 ×8, batch 2' at graph 0.4907, graph 0.1981 center font ',10' tc rgb '#222222' front
set label 'h200 ×4, batch 2' at graph 0.6322, graph 0.1875 center font ',10' tc rgb '#222222' front
set label 'h200 ×2, batch 2' at graph 0.7733, graph 0.1667 center font ',10' tc rgb '#222222' front
set label 'h200 ×1, batch 2' at graph 0.9136, graph 0.1252 center font ',10' tc rgb '#222222' front
set format x '%g'
set format y '%g'
set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set key at screen 0.5, screen 0.005 center bottom horizontal maxrows 2 vertical Left reverse box opaque samplen 2 spacing 1.1 font ',11'

plot \
    dat index 0 using 1:2 with points pt 7 ps 1.3 lc rgb '#0072B2' title 'a100-sxm4-80gb (0 feasible)', \
    dat index 1 using 1:2 with points pt 5 ps 1.3 lc rgb '#D55E00' title 'h100-sxm5-80gb (0 feasible)', \
    dat index 2 using 1:2 with points pt 9 ps 1.3 lc rgb '#009E73' title 'h200-sxm-141gb (14 feasible)', \
    dat index 3 using 1:2 with points pt 11 ps 1.3 lc rgb '#CC79A7' title 'l40s (0 feasible)', \
    dat index 4 using 1:2 with linespoints lw 3 lc rgb '#222222' pt 6 ps 2.2 title 'Pareto front (7)'
