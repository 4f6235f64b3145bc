import { useEffect, useRef } from 'react';
import uPlot from 'uplot';

export interface ChartSeries {
  readonly label: string;
  readonly values: readonly (number | null)[];
  /** A CSS colour; the stroke of the line. */
  readonly stroke: string;
}

export interface ChartProps {
  /** Seconds since the epoch, one per point. */
  readonly times: readonly number[];
  readonly series: readonly ChartSeries[];
  readonly height: number;
  /** A sparkline: no axes, no legend, no cursor. */
  readonly compact?: boolean;
  /** What the chart shows, for screen readers (the numbers are in the table beside it). */
  readonly label: string;
}

/** uPlot on a canvas: drag across a full chart to zoom in, double-click to zoom out. */
export function Chart({ times, series, height, compact = false, label }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const width = Math.max(compact ? 80 : 300, element.clientWidth);
    const axisStroke = getComputedStyle(element).color;
    const options: uPlot.Options = {
      width,
      height,
      legend: { show: !compact },
      cursor: compact ? { show: false } : { drag: { x: true, y: false } },
      scales: { x: { time: true } },
      axes: compact
        ? [{ show: false }, { show: false }]
        : [
            { stroke: axisStroke, grid: { stroke: 'rgba(128,128,128,0.2)' } },
            { stroke: axisStroke, grid: { stroke: 'rgba(128,128,128,0.2)' } },
          ],
      series: [
        {},
        ...series.map((s) => ({
          label: s.label,
          stroke: s.stroke,
          width: compact ? 1.5 : 2,
          spanGaps: true,
          points: { show: !compact },
        })),
      ],
    };
    const data: uPlot.AlignedData = [Float64Array.from(times), ...series.map((s) => s.values.map((v) => v ?? null))];
    const plot = new uPlot(options, data, element);
    return () => plot.destroy();
  }, [times, series, height, compact]);

  return <div ref={box} className={compact ? 'sparkline' : 'chart'} role="img" aria-label={label} />;
}
