# ridge 0.1.0 validation chart
# Render with: gnuplot docs/validate-published-dev-ratio.gp  (reads validate-published-dev-ratio.dat, writes validate-published-dev-ratio.png; from any directory)
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
dat = dir . 'validate-published-dev-ratio.dat'

if (strstrt(GPVAL_TERMINALS, ' pngcairo ') > 0) {
    set terminal pngcairo size 1100,700 noenhanced font 'Sans,12' background '#ffffff'
} else {
    set terminal png size 1100,700 noenhanced
}
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'validate-published-dev-ratio.png'
}

set title 'ridge validate: predicted / measured per case' . "\n" . '149 cases: MAPE 16.0 %, 77 within 10 %, 121 within 25 %' font ',14'
set xlabel 'Case (input order)'
set ylabel 'Predicted / measured (log scale; 1 = exact)'
set logscale y 10
set xrange [0.5:149.5]
set yrange [0.535186266:2.56522496]
set ytics (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 0.6, 0.75, 0.9, 1, 1.1, 1.25, 1.5, 2, 3, 5, 10, 20, 50, 100)
set format y '%g'
set xtics out nomirror
set grid xtics ytics lc rgb '#e4e4e4' lw 1
set border lw 1.2
set rmargin 9
set label 'exact' at graph 1, first 1 offset 1,0 left font ',10'
set label '+10 %' at graph 1, first 1.1 offset 1,0.3 left font ',10' tc rgb '#555555'
set label '-10 %' at graph 1, first 0.9 offset 1,-0.3 left font ',10' tc rgb '#555555'
set label '+25 %' at graph 1, first 1.25 offset 1,0.3 left font ',10' tc rgb '#555555'
set label '-25 %' at graph 1, first 0.75 offset 1,-0.3 left font ',10' tc rgb '#555555'
set key outside bottom center horizontal Left reverse samplen 1.5 spacing 1.1 font ',11'
set samples 2

plot \
    1 with lines lw 2 lc rgb '#222222' notitle, \
    1.1 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    0.9 with lines lw 1.2 dt 2 lc rgb '#777777' notitle, \
    1.25 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    0.75 with lines lw 1.2 dt 3 lc rgb '#777777' notitle, \
    dat index 0 using 1:4 with points pt 7 ps 1.4 lc rgb '#0072B2' title 'images/s (59 cases)', \
    dat index 1 using 1:4 with points pt 5 ps 1.4 lc rgb '#D55E00' title 'sequences/s (10 cases)', \
    dat index 2 using 1:4 with points pt 9 ps 1.4 lc rgb '#009E73' title 's, time (19 cases)', \
    dat index 3 using 1:4 with points pt 11 ps 1.4 lc rgb '#CC79A7' title 'output tokens/s (51 cases)', \
    dat index 4 using 1:4 with points pt 13 ps 1.4 lc rgb '#E69F00' title 'output tokens/s/GPU (10 cases)'
