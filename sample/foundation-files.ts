/** File names of the foundation's two Norwegian files (Geonorge's national download names). */
export const ADDRESS_CSV_NAME = 'Basisdata_0000_Norge_25833_MatrikkelenAdresse_CSV';
export const ADDRESS_CSV_ZIP = `${ADDRESS_CSV_NAME}.zip`;
export const ADDRESS_CSV_ENTRY = `${ADDRESS_CSV_NAME}/matrikkelenAdresse.csv`;
export const TEIG_GML_NAME = 'Basisdata_0000_Norge_25833_MatrikkelenEiendomskartTeig_GML';
export const TEIG_GML_ZIP = `${TEIG_GML_NAME}.zip`;
export const TEIG_GML_ENTRY = `${TEIG_GML_NAME}.gml`;
