# ridge 0.1.0 roofline chart: NVIDIA H200 SXM 141GB, missing-fields.json
# Render with: gnuplot roofline-missing-fields.gp  (reads roofline-missing-fields.dat, writes roofline-missing-fields.svg; from any directory)
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
dat = dir . 'roofline-missing-fields.dat'

set terminal svg size 1200,800 dynamic noenhanced font 'Sans,11' background '#ffffff'
# ridge renders with `gnuplot -c SCRIPT -`: the chart on standard output, into a temporary file
# it then renames over the chart.
if (exists('ARGC') && ARGC > 0 && ARG1 eq '-') {
    set output
} else {
    set output dir . 'roofline-missing-fields.svg'
}

set title 'Roofline: NVIDIA H200 SXM 141GB - missing-fields.json' . "\n" . 'measured: 1 kernel from missing-fields.json (8 other measurements skipped)' font ',14'
# The plot area is pinned so that the label positions in the .dat fit it.
set lmargin at screen 0.075
set rmargin at screen 0.975
set bmargin at screen 0.2
set tmargin at screen 0.9
set xlabel 'Arithmetic intensity [FLOP/byte]'
set ylabel 'Performance [TFLOP/s]'
set logscale xy 10
set xrange [0.1:10000]
set yrange [0.1:2473.5]
set format x '%g'
set format y '%g'
set mxtics 10
set mytics 10
set grid xtics ytics mxtics mytics lc rgb '#d8d8d8' lw 1, lc rgb '#f0f0f0' lw 1
set border lw 1.2
set style textbox opaque noborder margins 0.5,0.5
set key outside below center horizontal maxcols 3 samplen 3 spacing 1.1 font ',10'

plot \
    dat index 0 every ::0::0 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 1 lc rgb '#222222' title 'BF16 tensor: 989 TFLOP/s (achievable 777)', \
    dat index 0 every ::0::0 using 5:3:($6-$5):(0) with vectors nohead lw 1.5 dt 2 lc rgb '#222222' notitle, \
    dat index 0 every ::1::1 using 4:2:($6-$4):(0) with vectors nohead lw 2.5 dt 1 lc rgb '#8c564b' title 'FP32 vector: 66.9 TFLOP/s (achievable 60.2)', \
    dat index 0 every ::1::1 using 5:3:($6-$5):(0) with vectors nohead lw 1.5 dt 2 lc rgb '#8c564b' notitle, \
    dat index 1 every ::0::0 using 3:5:($4-$3):($6-$5) with vectors nohead lw 2.5 lc rgb '#1f77b4' title 'DRAM 4.8 TB/s (achievable 4.32 TB/s)', \
    dat index 1 every ::1::1 using 3:5:($4-$3):($6-$5) with vectors nohead lw 1.5 dt 2 lc rgb '#1f77b4' notitle, \
    dat index 1 every ::2::2 using 3:5:($4-$3):($6-$5) with vectors nohead lw 1.5 dt 4 lc rgb '#2ca02c' title 'L2 9.6 TB/s (model)', \
    NaN with lines lw 1.5 dt 2 lc rgb '#555555' title 'dashed: achievable (model efficiency)', \
    dat index 2 using 1:2 with points pt 7 ps 0.8 lc rgb '#222222' notitle, \
    dat index 2 using 3:(strcol(5) eq 'l' ? $4 : NaN):6 with labels left boxed font ',9' tc rgb '#222222' notitle, \
    dat index 5 using 3:4:($1-$3):($2-$4) with vectors nohead lw 1 lc rgb '#888888' notitle, \
    dat index 3 using 1:($3 == 0 ? $2 : NaN) with points pt 7 ps 1.2 lc rgb '#d62728' title 'predicted, compute-bound', \
    dat index 5 using 1:2 with points pt 4 ps 1.3 lw 1.5 lc rgb '#000000' title 'measured (hollow), joined to its prediction', \
    dat index 4 using 1:(strcol(3) eq 'l' ? $2 : NaN):4 with labels left boxed font ',8' tc rgb '#333333' notitle
