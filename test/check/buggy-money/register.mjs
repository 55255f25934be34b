import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, { data: { bug: process.env['LARDER_MONEY_BUG'] } });
