# ridge 0.1.0 bar chart
# Render with: gnuplot docs/plan-resnet50-serving-mig.gp  (reads plan-resnet50-serving-mig.dat, writes plan-resnet50-serving-mig.png; from any directory)
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
dat = dir . 'plan-resnet50-serving-mig.dat'

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
    set output dir . 'plan-resnet50-serving-mig.png'
}

set title 'resnet50 serving 1000 requests/s at p99 <= 20 ms: cheapest server per candidate' . "\n" . 'labels: candidate: replicas x batch; M/D/c closed form; lower is cheaper' font ',14'
set ylabel 'Cost [USD per million requests]'
set yrange [0:0.61]
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
    dat using ($0 +0):2:(sprintf('%.3g', column(2))) every ::1 with labels offset 0,0.7 font ',9' notitle
