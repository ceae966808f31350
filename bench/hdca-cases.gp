# The figures of docs/hdca.md's benchmark (seed 004 Figs. 5, 8-11 in shape) from the files of
# hydyn_bench --hdca-cases and --scaling (docs/cli.md, "Benchmarks"):
#
#   gnuplot -e "csv='build/bench/results/HOST/hdca-cases.csv'; \
#               scaling='build/bench/results/HOST/scaling.csv'; out='docs/figures'" \
#           bench/hdca-cases.gp
#
# csv (hdca-cases.csv) gives out/hdca-wall.png, out/hdca-evals.png and out/hdca-accuracy.png;
# scaling (scaling.csv) gives out/hdca-scaling.png. Either may be left out; out defaults to the
# current directory. Columns are found by their names in the header, so added columns do not
# break the script. Only rows with status ok are drawn (refused and failed runs measured
# nothing that compares).

if (!exists("out")) out = "."
has_csv = exists("csv")
has_scaling = exists("scaling")
if (!has_csv && !has_scaling) {
  print "hdca-cases.gp: give csv='hdca-cases.csv' and/or scaling='scaling.csv' (and out='DIR')"
  exit status 2
}

set datafile separator ","
set datafile columnheaders
set terminal pngcairo size 1500,560 font "sans,11" noenhanced
set encoding utf8

# The palette of hydyn's own figures (src/cli/cli_figure.c): colour = integrator (or
# formulation), dashes = engine (or family).
colour(k) = word("#0072b2 #d55e00 #009e73 #cc79a7 #e69f00", k)
set grid xtics ytics lt 1 lc rgb "#dcdcdc" lw 1
set border lc rgb "#404040"
set tics nomirror out scale 0.6
set format x "1e%T"
set format y "%g"

engines = "dca hdca"
integrators = "dopri5 bs23 adams"
cases = "case1 case2 case3"
case_title(c) = c eq "case1" ? "case 1: one loop, 4 bodies, 1 dof" : \
                c eq "case2" ? "case 2: one loop, 8 bodies, 5 dof" : \
                "case 3: two loops, 8 bodies, 3 dof"

# A row's value of column `col` when it is engine e, case c, integrator i and ok, else NaN.
sel(e, c, i) = strcol("engine") eq "hydyn-".e && strcol("case") eq c && \
               strcol("integrator") eq i && strcol("status") eq "ok"
val(col, e, c, i, scale) = sel(e, c, i) ? column(col) * scale : NaN
# A zero (a loop closed to round-off) has no place on a log axis.
pos(v) = v > 0 ? v : NaN

dash(e) = e eq "dca" ? 2 : 1
point(e) = e eq "dca" ? 6 : 7
label(e, i) = (e eq "dca" ? "DCA" : "HDCA") . ", " . i

# The key of a multiplot across the bottom of the figure, in one row: an empty plot whose only
# content is its key (a panel's own key would be laid out within the panel's width).
curves = "for [e in engines] for [j = 1:3] NaN with linespoints lc rgb colour(j) dt dash(e) " . \
         "pt point(e) ps 1.1 lw 1.8 title label(e, word(integrators, j))"
key_row(height, extra) = "set origin 0, 0; set size 1, " . sprintf("%g", height) . "; " . \
  "unset border; unset tics; unset grid; unset xlabel; unset ylabel; unset title; " . \
  "unset logscale; set xrange [0:1]; set yrange [0:1]; " . \
  "set key center center horizontal maxrows 1 Left reverse samplen 3 width 1; " . \
  "plot " . curves . extra
panels = "set border 31 lc rgb '#404040'; unset x2tics; unset y2tics; " . \
         "set xtics nomirror out scale 0.6; set ytics nomirror out scale 0.6; " . \
         "set grid xtics ytics lt 1 lc rgb '#dcdcdc' lw 1; set logscale xy 10; " . \
         "set xrange [5e-10:2e-3]; set format x '1e%T'"

set xrange [5e-10:2e-3]
set logscale xy 10

if (has_csv) {
  # the output interval of the runs (hydyn_bench --hdca-dt), for the titles
  stats csv using (column("dt")) nooutput
  dt_text = sprintf("state every %g s", STATS_min)
  if (STATS_min != STATS_max) {
    dt_text = sprintf("state every %g ... %g s", STATS_min, STATS_max)
  }

  # a case with no measured run (refused, failed) gets an empty panel that says so
  array nok[3]
  do for [k = 1:3] {
    stats csv using ((strcol("case") eq word(cases, k) && strcol("status") eq "ok") ? 1 : 0) nooutput
    nok[k] = STATS_sum
  }
  empty_label(k) = nok[k] > 0 ? "unset label 1" : \
    "set label 1 'no run of this case measured' at graph 0.5, 0.5 center tc rgb '#808080'"

  #----- (a) wall time -----------------------------------------------------------------------
  # one range for the three panels, in whole decades, also for a panel without a measured run
  stats csv using (strcol("status") eq "ok" ? column("wall_s") * 1e3 : NaN) nooutput
  set yrange [10**floor(log10(STATS_min)):10**ceil(log10(STATS_max))]
  set output out."/hdca-wall.png"
  set multiplot title "Wall time of the 10 s run against the tolerance (" . dt_text . "; median wall time of the stepping loop)" font ",13"
  do for [k = 1:3] {
    c = word(cases, k)
    set origin (k - 1) / 3.0, 0.08
    set size 1 / 3.0, 0.84
    set title case_title(c)
    set xlabel "tolerance δ (rtol = atol)"
    set ylabel (k == 1 ? "wall time (ms)" : "")
    eval empty_label(k)
    unset key
    plot for [e in engines] for [j = 1:3] \
      csv using (val("tolerance", e, c, word(integrators, j), 1)):(val("wall_s", e, c, word(integrators, j), 1e3)) \
      with linespoints lc rgb colour(j) dt dash(e) pt point(e) ps 1.1 lw 1.8 \
      title label(e, word(integrators, j))
  }
  unset label 1
  eval key_row(0.06, "")
  unset multiplot
  eval panels

  #----- (b) evaluations and time per evaluation -------------------------------------------------
  set terminal pngcairo size 1500,960 font "sans,11" noenhanced
  set output out."/hdca-evals.png"
  set multiplot title "Right-hand-side evaluations of the 10 s run, and its wall time over them (" . dt_text . "):\nthe time per evaluation carries the fixed cost of each output step" font ",13"
  do for [row = 1:2] {
    do for [k = 1:3] {
      c = word(cases, k)
      set origin (k - 1) / 3.0, (row == 1 ? 0.53 : 0.08)
      set size 1 / 3.0, 0.41
      set title (row == 1 ? case_title(c) : "")
      set xlabel (row == 2 ? "tolerance δ (rtol = atol)" : "")
      if (row == 1) {
        set ylabel (k == 1 ? "right-hand-side evaluations (count)" : "")
      } else {
        set ylabel (k == 1 ? "wall time / evaluations (µs)" : "")
      }
      unset key
      eval empty_label(k)
      ycol = row == 1 ? "rhs_evals" : "us_per_eval"
      if (row == 1) { set yrange [100:1e5] } else { set yrange [1:1000] }
      plot for [e in engines] for [j = 1:3] \
        csv using (val("tolerance", e, c, word(integrators, j), 1)):(val(ycol, e, c, word(integrators, j), 1)) \
        with linespoints lc rgb colour(j) dt dash(e) pt point(e) ps 1.1 lw 1.8 \
        title label(e, word(integrators, j))
    }
  }
  unset label 1
  eval key_row(0.05, "")
  unset multiplot
  eval panels

  #----- (c) accuracy: energy drift and loop violation -------------------------------------------
  set output out."/hdca-accuracy.png"
  set format y "1e%T"
  set multiplot title "What the tolerance buys: energy drift and loop-closure violation over the 10 s run (" . dt_text . ")" font ",13"
  do for [row = 1:2] {
    do for [k = 1:3] {
      c = word(cases, k)
      set origin (k - 1) / 3.0, (row == 1 ? 0.53 : 0.08)
      set size 1 / 3.0, 0.41
      set title (row == 1 ? case_title(c) : "")
      set xlabel (row == 2 ? "tolerance δ (rtol = atol)" : "")
      if (row == 1) {
        set ylabel (k == 1 ? "energy drift max|E(t) − E(0)| (J)" : "")
      } else {
        set ylabel (k == 1 ? "loop violation max over steps (m)" : "")
      }
      unset key
      eval empty_label(k)
      ycol = row == 1 ? "max_energy_drift_J" : "max_loop_violation_m"
      if (row == 1) { set yrange [1e-9:1e2] } else { set yrange [1e-11:1e1] }
      plot for [e in engines] for [j = 1:3] \
        csv using (val("tolerance", e, c, word(integrators, j), 1)):(pos(val(ycol, e, c, word(integrators, j), 1))) \
        with linespoints lc rgb colour(j) dt dash(e) pt point(e) ps 1.1 lw 1.8 \
        title label(e, word(integrators, j)), \
        x with lines lc rgb "#909090" dt 3 lw 1.2 title "slope 1 (y = δ)"
    }
  }
  unset label 1
  eval key_row(0.05, ', NaN with lines lc rgb "#909090" dt 3 lw 1.2 title "slope 1 (y = δ)"')
  unset multiplot
  eval panels
  set format y "%g"
  set yrange [*:*]
}

if (has_scaling) {
  #----- (d) cost of one evaluation against N --------------------------------------------------
  set terminal pngcairo size 1000,720 font "sans,11" noenhanced
  set output out."/hdca-scaling.png"
  set origin 0, 0
  set size 1, 1
  unset title
  set title "One evaluation of the right-hand side (hy_forward), 1 thread, against the number of bodies" font ",13"
  set xrange [3:6000]
  set yrange [*:*]
  set format x "%g"
  set format y "%g"
  set xlabel "N (moving bodies)"
  set ylabel "wall time per evaluation (µs)"
  set key default
  set key top left Left reverse samplen 3 spacing 1.1 box lc rgb "#c0c0c0" opaque
  set yrange [0.3:2e4]
  ssel(fam, f) = strcol("family") eq fam && strcol("formulation") eq f && column("threads") == 1
  sval(col, fam, f) = ssel(fam, f) ? column(col) : NaN
  forms = "dca hdca tree"
  fcolour(f) = f eq "dca" ? colour(1) : f eq "hdca" ? colour(2) : colour(3)
  # slope-1 guide through chain-N dca's time per body at N = 64 (about 0.25 us per body)
  plot for [f in forms] scaling using (sval("N", "chain", f)):(sval("us_per_eval", "chain", f)) \
         with linespoints lc rgb fcolour(f) dt 1 pt 7 ps 1.1 lw 1.8 title "chain-N, ".f, \
       for [f in "dca hdca"] scaling using (sval("N", "loop", f)):(sval("us_per_eval", "loop", f)) \
         with linespoints lc rgb fcolour(f) dt 2 pt 6 ps 1.3 lw 1.8 title "loop-N, ".f, \
       0.25 * x with lines lc rgb "#606060" dt 3 lw 1.5 title "slope 1: 0.25 µs per body", \
       2e-4 * x**3 with lines lc rgb "#a0a0a0" dt 4 lw 1.2 title "slope 3 (dense mass matrix)"
}
