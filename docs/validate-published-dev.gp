# ridge 0.1.0 validation chart
# Render with: gnuplot docs/validate-published-dev.gp  (reads validate-published-dev.dat, writes validate-published-dev.png; from any directory)
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
dat = dir . 'validate-published-dev.dat'

if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
    set terminal pngcairo size 860,860 noenhanced font 'Sans,12' background '#ffffff'
} else {
    set terminal png size 860,860 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'validate-published-dev.png'
}

set title 'ridge validate: predicted against measured' . "\n" . '69 cases: MAPE 45.3 %, 25 within 10 %, 44 within 25 %' font ',14'
set xlabel 'Measured (each case in its own unit: see the key)'
set ylabel 'Predicted (same unit)'
set logscale xy 10
set xrange [0.0001:1000000]
set yrange [0.0001:1000000]
set size ratio -1
set format x '%g'
set format y '%g'
set xtics out nomirror
set ytics out nomirror
set grid xtics ytics lc rgb '#e4e4e4' lw 1
set border lw 1.2
set label 'exact' at 0.0003, 0.0003 rotate by 45 font ',10' offset 0,0.6
set key inside top left vertical Left reverse samplen 1.5 spacing 1.1 font ',11' box lc rgb '#bbbbbb' opaque
set samples 200

plot \
    x with lines lw 2 lc rgb '#222222' notitle, \
    1.1*x with lines lw 1.2 dt 2 lc rgb '#777777' title '±10 %', \
    0.9*x with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25*x with lines lw 1.2 dt 3 lc rgb '#777777' title '±25 %', \
    0.75*x with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 0 using 2:3 with points pt 7 ps 1.4 lc rgb '#0072B2' title 'images/s (23 cases)', \
    dat index 1 using 2:3 with points pt 5 ps 1.4 lc rgb '#D55E00' title 'sequences/s (10 cases)', \
    dat index 2 using 2:3 with points pt 9 ps 1.4 lc rgb '#009E73' title 's, time (15 cases)', \
    dat index 3 using 2:3 with points pt 11 ps 1.4 lc rgb '#CC79A7' title 'output tokens/s (21 cases)'
