// The host page's charts (recharts, the page's largest code) load lazily. One import() per chart
// module, shared by its next/dynamic component and by the page's preload: the bundler gives each
// import() site its own chunk, so a preload through a second import() would fetch a copy and the
// chart would still wait for its own.
export const loadTimeSeriesChart = () => import('@/components/stats/time-series-chart');
export const loadHostHealthCharts = () => import('./health-charts');

/** Starts fetching the charts' code while the page's data loads, instead of after it arrives. */
export function preloadHostCharts(): void {
  void loadTimeSeriesChart();
  void loadHostHealthCharts();
}
