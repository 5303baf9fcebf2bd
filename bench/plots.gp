# Plots of the workload results: gnuplot -e "dir='bench/results'" bench/plots.gp
# Reads dir/w1.csv .. w4.csv (written by bench/run.sh), writes dir/w1.svg .. w4.svg.
set terminal svg size 900,520 dynamic font "sans,12"
set datafile separator ","
set key outside right top
set grid
engines = "tickwheel scheme1 scheme2 scheme3 scheme4 scheme5 scheme6 scheme7 heap lawn"
rows(file, e) = sprintf("< awk -F, '$1 == \"%s\"' %s/%s", e, dir, file)

# ---------------------------------------------------------------- W1
# One cluster per size, one bar per engine that ran it (log scale).
set output dir."/w1.svg"
set title "W1 connection pairs: operations per second (higher is better)"
set style data histogram
set style histogram cluster gap 1
set style fill solid 0.8 border -1
set boxwidth 0.9
set logscale y
set ylabel "operations / s"
set xlabel "engine"
set xtics rotate by -30
pairs = system(sprintf("awk -F, 'NR > 1 { print $2 }' %s/w1.csv | sort -un | tr '\\n' ' '", dir))
col(e, p) = sprintf("< awk -F, -v p=%s 'NR > 1 && $2 == p { v[$1] = $5 } END { n = split(\"%s\", es, \" \"); for (i = 1; i <= n; i++) print es[i] \",\" (es[i] in v ? v[es[i]] : \"NaN\") }' %s/w1.csv", p, engines, dir)
plot for [p in pairs] col("", p) using 2:xtic(1) title p." pairs"
unset style
unset logscale
set xtics norotate
set style data linespoints

# ---------------------------------------------------------------- W2
set output dir."/w2.svg"
set title "W2 (Fig. 9): one start + stop with N timers outstanding"
set logscale xy
set xlabel "N outstanding timers"
set ylabel "ns per start + stop"
plot for [e in engines] rows("w2.csv", e) using 2:4 with linespoints title e

# ---------------------------------------------------------------- W3
set output dir."/w3.svg"
set title "W3: chip events per timer, measured (points) and predicted (lines), M = 256 slots a level"
set xlabel "T / M (mean interval over slots per level)"
set ylabel "events per timer"
set key outside right top
m_rows(m, d) = sprintf("< awk -F, 'NR > 1 && $1 == %d && $3 == \"%s\"' %s/w3.csv", m, d, dir)
plot x title "hashed prediction T/M" with lines lw 2 dt 2 lc rgb "black", \
     for [m=2:4] m title sprintf("hierarchy bound m = %d", m) with lines dt 3 lc m + 1, \
     for [m=1:4] m_rows(m, "fixed") using 5:7 with points pt 7 lc m title sprintf("m = %d, fixed T", m), \
     for [m=1:4] m_rows(m, "exp") using 5:7 with points pt 6 lc m title sprintf("m = %d, exponential", m)

# ---------------------------------------------------------------- W4
set output dir."/w4.svg"
set title "W4 retransmission timers: operations per second"
set logscale xy
set xlabel "connections"
set ylabel "operations / s"
plot for [e in engines] rows("w4.csv", e) using 2:5 with linespoints title e
