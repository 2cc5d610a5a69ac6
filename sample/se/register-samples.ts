/** The sample files of the Swedish energy, company, price, area and plan sources, in load order. */
import type { SampleRegisterFile } from '../register-files.js';
import { SE_AREA_SAMPLE_FILE } from './areas.js';
import { SE_BUSINESS_SAMPLE_FILE } from './companies.js';
import { SE_ENERGY_SAMPLE_FILE } from './energy-declarations.js';
import { SE_TRANSACTIONS_SAMPLE_FILE } from './property-sales.js';
import { SE_ZONING_SAMPLE_FILE } from './zoning-plans.js';

export const SE_REGISTER_SAMPLE_FILES: SampleRegisterFile[] = [SE_ENERGY_SAMPLE_FILE, SE_BUSINESS_SAMPLE_FILE, SE_TRANSACTIONS_SAMPLE_FILE, SE_AREA_SAMPLE_FILE, SE_ZONING_SAMPLE_FILE];
