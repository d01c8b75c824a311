# ridge 0.1.0 bar chart
# Render with: gnuplot docs/plan-resnet50-a40-a100.gp  (reads plan-resnet50-a40-a100.dat, writes plan-resnet50-a40-a100.png; from any directory)
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
dat = dir . 'plan-resnet50-a40-a100.dat'

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
    set output dir . 'plan-resnet50-a40-a100.png'
}

set title 'resnet50 train: GPUs relative to a40 (fp16, b=256) (= 1), one GPU at its best batch' . "\n" . 'a40 = 1: 1136 samples/s, 8.683 samples/s per W, 5109921 samples per USD' font ',14'
set ylabel 'Relative to the first GPU [ratio]'
set yrange [0:3.31162]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#333333'
set boxwidth 0.9
set xtics nomirror rotate by -30 left font ',11'
set format y '%g'
set grid ytics lc rgb '#d8d8d8' lw 1
set border lw 1.2
set key inside right top vertical Left reverse box opaque samplen 2 font ',11'

plot \
    dat using 2:xtic(1) lc rgb '#0072B2' title columnheader, \
    dat using ($0 -0.25):2:(sprintf('%.3g', column(2))) every ::1 with labels offset 0,0.7 font ',9' notitle, \
    dat using 3 lc rgb '#D55E00' title columnheader, \
    dat using ($0 +0):3:(sprintf('%.3g', column(3))) every ::1 with labels offset 0,0.7 font ',9' notitle, \
    dat using 4 lc rgb '#009E73' title columnheader, \
    dat using ($0 +0.25):4:(sprintf('%.3g', column(4))) every ::1 with labels offset 0,0.7 font ',9' notitle
