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
    set terminal pngcairo size 1500,1370 noenhanced font 'Sans,12' background '#ffffff'
} else {
    set terminal png size 1500,1370 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'validate-published-dev.png'
}

set logscale xy 10
set format x '%g'
set format y '%g'
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics out nomirror
set ytics out nomirror
set mxtics 10
set grid xtics ytics lc rgb '#e4e4e4' lw 1
set border lw 1.2
set ylabel 'Predicted / measured (1 = exact)'
set key outside right top vertical Left reverse samplen 1 spacing 1.05 font ',10'
set samples 2
set object 1 rect from graph 0, first 0.9 to graph 1, first 1.1 behind fc rgb '#e6f2e6' fs solid 1.0 noborder
set multiplot layout 3,2 title 'ridge validate: predicted / measured against measured, a panel per unit' . "\n" . '149 cases: MAPE 16.0 %, 77 within 10 %, 121 within 25 %' font ',14'

# ---- panel 0 ----
set title 'images/s: 59 cases, MAPE 16.3 %' font ',12'
set xlabel 'Measured [' . 'images/s' . ']'
set xrange [51.032:140351]
set yrange [0.6:2.49831]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics auto
plot \
    1 with lines lw 2 lc rgb '#222222' title 'exact', \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' title '±10 %', \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' title '±25 %', \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 0 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'published (59)'

# ---- panel 1 ----
set title 'sequences/s: 10 cases, MAPE 45.1 %' font ',12'
set xlabel 'Measured [' . 'sequences/s' . ']'
set xrange [9.50882:731.952]
set yrange [0.549522:2.3588]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics (10, 20, 50, 100, 200, 500)
plot \
    1 with lines lw 2 lc rgb '#222222' notitle, \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 1 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'published (10)'

# ---- panel 2 ----
set title 's (time): 19 cases, MAPE 12.9 %' font ',12'
set xlabel 'Measured [' . 's' . ']'
set xrange [0.00023831:0.572042]
set yrange [0.6:1.6]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics auto
plot \
    1 with lines lw 2 lc rgb '#222222' notitle, \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 2 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'published (19)'

# ---- panel 3 ----
set title 'output tokens/s: 51 cases, MAPE 9.2 %' font ',12'
set xlabel 'Measured [' . 'output tokens/s' . ']'
set xrange [344.373:36338.2]
set yrange [0.6:1.6]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics auto
plot \
    1 with lines lw 2 lc rgb '#222222' notitle, \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 3 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'published (51)'

# ---- panel 4 ----
set title 'output tokens/s/GPU: 10 cases, MAPE 25.9 %' font ',12'
set xlabel 'Measured [' . 'output tokens/s/GPU' . ']'
set xrange [63.9766:3280.93]
set yrange [0.6:1.88971]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set xtics (100, 200, 500, 1000, 2000)
plot \
    1 with lines lw 2 lc rgb '#222222' notitle, \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 4 using 2:4 with points pt 7 ps 0.9 lc rgb '#0072B2' title 'published (10)'
unset multiplot
