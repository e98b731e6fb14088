set terminal pngcairo size 1100,600 noenhanced
set output '/work/main/records/stencil-transatlantic/rep3/rate.png'
set datafile separator ','
set title 'gridstencil 256x1024 on transatlantic, stl x8 + pot x8 ranks: rate over iterations (seed 004 Figs. 4, 5)'
set xlabel 'iteration'
set ylabel 'grid-point updates per second'
set key top left
set grid
plot \
  '/work/main/records/stencil-transatlantic/rep3/standard.csv' using 4:6 skip 1 with lines lw 2 title 'standard', \
  '/work/main/records/stencil-transatlantic/rep3/grid.csv' using 4:6 skip 1 with lines lw 2 title 'grid-aware', \
  '/work/main/records/stencil-transatlantic/rep3/marks-comp.dat' using 1:2 with points pt 7 ps 1.2 title 'compression decided', \
  '/work/main/records/stencil-transatlantic/rep3/marks-ghost.dat' using 1:2:3 with labels point pt 5 ps 1.5 offset 0,1 title 'ghost depth decided'
