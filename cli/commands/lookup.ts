import { getPool } from '../../lib/db.js';
import { lookupCoordinate } from '../../store/coordinate-lookup.js';
import { printJson } from '../output.js';

export async function lookupCommand(options: { lat: number; lon: number; country: string; json: boolean }): Promise<number> {
  const { lat, lon } = options;
  let result;
  try {
    result = await lookupCoordinate(getPool(undefined, 'api'), options.country.toUpperCase(), lat, lon);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    console.error(error.message);
    return 2;
  }
  if (options.json) {
    printJson(result);
    return 0;
  }
  if (!result.parcel) {
    console.log(`no ${options.country.toUpperCase()} parcel covers lat ${lat}, lon ${lon}`);
    return 0;
  }
  const p = result.property;
  console.log(`parcel ${result.parcel.parcelId} (${result.parcel.areaM2} m²), units ${result.parcel.cadastreIds.join(', ')}`);
  if (p) {
    console.log(`property ${p.cadastreId} ${p.propertyType} in ${p.municipality.code} ${p.municipality.name ?? ''}: ${p.areaM2} m² on ${p.plotCount} parcel(s)`);
    for (const address of result.addresses) console.log(`  ${address.text}, ${address.postalCode ?? ''} ${address.postalPlace ?? ''}`);
  }
  return 0;
}
