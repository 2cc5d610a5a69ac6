import { describe, expect, it } from 'vitest';
import { getSource } from '../../sources/registry.js';
import { inputCoversCountry } from '../../sources/input-scope.js';

/**
 * Each registered source's own scope rule (`scopeOf`): what one of its inputs replaces, the
 * whole country or only the municipalities it holds. validate.ts asks the adapter; no rule of
 * one register's file naming is applied to another's.
 */
describe('the scope rule each source declares', () => {
  it('a Geonorge national file is the country; a municipality extract is its municipalities', () => {
    const cadastre = getSource('no-cadastre');
    expect(cadastre.scopeOf('/data/Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML.zip')).toBe('country');
    expect(cadastre.scopeOf('/data/Basisdata_0301_Oslo_25833_MatrikkelenEiendomskartTeig_GML.zip')).toBe('staged-municipalities');
    expect(getSource('no-address').scopeOf('Basisdata_4601_Bergen_25833_MatrikkelenAdresse_CSV.zip')).toBe('staged-municipalities');
  });

  it('a Swedish exchange file borrows the convention: detaljplaner_0000_sverige is national', () => {
    expect(getSource('se-zoning').scopeOf('/inbox/detaljplaner_0000_sverige.jsonl')).toBe('country');
    expect(getSource('se-zoning').scopeOf('/inbox/detaljplaner_0180_stockholm.jsonl')).toBe('staged-municipalities');
    expect(getSource('se-transactions').scopeOf('fastighetspriser_0000_sverige.tar')).toBe('country');
  });

  it('a business register has no regional extracts: any file is the whole country', () => {
    expect(getSource('no-business').scopeOf('/tmp/enheter_oslo.json.gz')).toBe('country');
    expect(getSource('se-business').scopeOf('/tmp/foretag_0180.tar')).toBe('country');
  });

  it("Lantmäteriet's GeoPackages are scoped by their rows, whatever their name holds", () => {
    // Not Geonorge's naming: a 0000 in a Swedish GeoPackage's name says nothing about its coverage.
    expect(getSource('se-cadastre').scopeOf('/data/lan_0000_fastighetsindelning.gpkg')).toBe('staged-municipalities');
    expect(getSource('se-address').scopeOf('/data/belagenhetsadresser_stockholms_lan.gpkg')).toBe('staged-municipalities');
  });

  it('a file named as the national download replaces the country wherever it lies (NORDPROP_INPUT_DIR); any other name only its municipalities', () => {
    const address = getSource('se-address');
    expect(inputCoversCountry(address, '/srv/inputs/belagenhetsadresser_sverige.gpkg')).toBe(true);
    expect(inputCoversCountry(address, '/srv/inputs/belagenhetsadresser_stockholms_lan.gpkg')).toBe(false);
    expect(inputCoversCountry(getSource('se-cadastre'), '/srv/inputs/fastighetsindelning_sverige.gpkg')).toBe(true);
  });
});
