# ridge 0.1.0 curve chart
# Render with: gnuplot docs/serving-resnet50-a40-vs-a100.gp  (reads serving-resnet50-a40-vs-a100.dat, writes serving-resnet50-a40-vs-a100.png; from any directory)
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
dat = dir . 'serving-resnet50-a40-vs-a100.dat'

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
    set output dir . 'serving-resnet50-a40-vs-a100.png'
}

set title 'resnet50 (fp16): latency against load, dynamic batching (max 32, timeout 2 ms)' font ',14'
set xlabel 'Offered load [requests/s]'
set xrange [0:*]
set format x '%g'
set format y '%g'
set grid xtics ytics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set key at graph 0.02, graph 0.90 left top vertical Left reverse box opaque samplen 4 spacing 1.1 font ',11' width 1
set logscale y 10
set mytics 10
set ylabel 'Latency [ms]'
set yrange [2:83.5698]
set ytics (2, 5, 10, 20, 50)
set arrow from 3280.31561, graph 0 to 3280.31561, graph 1 nohead dt 3 lw 1.5 lc rgb '#0072B2'
set label 'a40 saturation 3280/s' at 3280.31561, graph 0.97 right offset -0.5,0 font ',10' tc rgb '#0072B2'
set arrow from 6764.56902, graph 0 to 6764.56902, graph 1 nohead dt 3 lw 1.5 lc rgb '#D55E00'
set label 'a100-pcie-40gb saturation 6765/s' at 6764.56902, graph 0.97 right offset -0.5,0 font ',10' tc rgb '#D55E00'

plot \
    dat index 0 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#0072B2' title 'a40 p99', \
    dat index 1 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#0072B2' title 'a40 p50', \
    dat index 2 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#0072B2' title 'a40 mean', \
    dat index 3 using 1:2 with linespoints lw 2 dt 1 pt 7 ps 0.9 lc rgb '#D55E00' title 'a100-pcie-40gb p99', \
    dat index 4 using 1:2 with linespoints lw 2 dt 2 pt 5 ps 0.9 lc rgb '#D55E00' title 'a100-pcie-40gb p50', \
    dat index 5 using 1:2 with linespoints lw 2 dt 3 pt 9 ps 0.9 lc rgb '#D55E00' title 'a100-pcie-40gb mean'
