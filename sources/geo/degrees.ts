/**
 * Degrees to 7 decimals (about a centimetre), through integers: formatting an integer is several
 * times cheaper than the shortest round-trip form of a double, and this runs for every vertex
 * and every address point.
 */
export function degrees7(value: number): string {
  const scaled = Math.round(value * 1e7);
  const magnitude = scaled < 0 ? -scaled : scaled;
  const whole = Math.floor(magnitude / 1e7);
  const fraction = String(magnitude - whole * 1e7);
  return `${scaled < 0 ? '-' : ''}${whole}.${'0000000'.slice(fraction.length)}${fraction}`;
}
