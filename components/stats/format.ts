// Stats values as an admin reads them (bytes and rates are in components/ui/format.ts).
export const formatPercent = (value: number): string => `${value < 10 ? value.toFixed(1) : Math.round(value)} %`;
