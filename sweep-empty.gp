# ridge 0.1.0 curve chart
# Render with: gnuplot sweep-empty.gp  (reads sweep-empty.dat, writes sweep-empty.svg; from any directory)
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
dat = dir . 'sweep-empty.dat'

set terminal svg size 1000,700 dynamic noenhanced font 'Sans,12' background '#ffffff'
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'sweep-empty.svg'
}

set title 'resnet50 (bf16): latency against load, M/D/1 (Pollaczek-Khinchine)' font ',14'
set xlabel 'Offered load [requests/s]'
set xrange [0:63000]
set format x '%g'
set format y '%g'
set grid xtics ytics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set key at graph 0.02, graph 0.90 left top vertical Left reverse box opaque samplen 4 spacing 1.1 font ',11' width 1
set logscale y 10
set mytics 10
set ylabel 'Latency [ms]'
set yrange [1:10]
set label 'no finite value to draw' at graph 0.5, graph 0.5 center
set arrow from 344.463447, graph 0 to 344.463447, graph 1 nohead dt 3 lw 1.5 lc rgb '#0072B2'
set label 'h100-sxm5-80gb saturation 344.5/s' at 344.463447, graph 0.97 right offset -0.5,0 font ',10' tc rgb '#0072B2'

plot \
    dat index 0 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#0072B2' title 'h100-sxm5-80gb p99', \
    dat index 1 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#0072B2' title 'h100-sxm5-80gb p50', \
    dat index 2 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#0072B2' title 'h100-sxm5-80gb mean'
