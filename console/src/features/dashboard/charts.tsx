/** The dashboard's charts (recharts): a metric over time as stacked bars, and its share as a donut. Colours follow the antd theme. */
import { theme } from 'antd';
import type { ReactNode } from 'react';
import { Bar, BarChart, CartesianGrid, Cell, Legend, Pie, PieChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { SERIES_COLORS } from './constants';
import type { ChartPoint, Series } from './shape';

const color = (i: number) => SERIES_COLORS[i % SERIES_COLORS.length];

interface Common {
  /** A value as the tooltip writes it, and compact for the axis. */
  format: (value: number, compact?: boolean) => string;
  /** The shown name of a series (translates the "other" series). */
  nameOf: (name: string) => string;
  height?: number;
}

function useChartStyle() {
  const { token } = theme.useToken();
  return {
    axis: { fill: token.colorTextSecondary, fontSize: 12 },
    grid: token.colorBorderSecondary,
    tooltip: {
      contentStyle: {
        background: token.colorBgElevated,
        border: `1px solid ${token.colorBorderSecondary}`,
        borderRadius: token.borderRadius,
        color: token.colorText,
      },
      itemStyle: { color: token.colorText },
      labelStyle: { color: token.colorTextSecondary },
      cursor: { fill: token.colorFillSecondary },
    },
    legend: { color: token.colorText },
  };
}

const legendText = (style: { color: string }) => (value: ReactNode) => <span style={style}>{value}</span>;

export function TrendChart({
  points,
  series,
  format,
  nameOf,
  height = 320,
}: Common & { points: ChartPoint[]; series: Series[] }) {
  const s = useChartStyle();
  return (
    <ResponsiveContainer width="100%" height={height}>
      <BarChart data={points} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
        <CartesianGrid stroke={s.grid} strokeDasharray="3 3" vertical={false} />
        <XAxis dataKey="label" tick={s.axis} stroke={s.grid} minTickGap={16} />
        <YAxis tick={s.axis} stroke={s.grid} width={64} tickFormatter={(v: number) => format(v, true)} />
        <Tooltip {...s.tooltip} formatter={(v) => format(Number(v))} />
        <Legend formatter={legendText(s.legend)} />
        {series.map((x, i) => (
          <Bar
            key={x.key}
            dataKey={x.key}
            name={nameOf(x.name)}
            stackId="total"
            fill={color(i)}
            maxBarSize={48}
            isAnimationActive={false}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}

export function ShareChart({ slices, format, nameOf, height = 320 }: Common & { slices: { name: string; value: number }[] }) {
  const s = useChartStyle();
  const data = slices.map((x) => ({ name: nameOf(x.name), value: x.value }));
  return (
    <ResponsiveContainer width="100%" height={height}>
      <PieChart>
        <Pie
          data={data}
          dataKey="value"
          nameKey="name"
          innerRadius="45%"
          outerRadius="75%"
          paddingAngle={1}
          stroke="none"
          isAnimationActive={false}
        >
          {data.map((x, i) => (
            <Cell key={x.name} fill={color(i)} />
          ))}
        </Pie>
        <Tooltip {...s.tooltip} formatter={(v) => format(Number(v))} />
        <Legend formatter={legendText(s.legend)} />
      </PieChart>
    </ResponsiveContainer>
  );
}
