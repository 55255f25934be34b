import { answerRequests } from '../shared/worker-channel.js';
import { type ConvertedBatch, convertBatch, type RawBatch } from './convert-batch.js';

/** Converts batches in the order they come, answering each with its ConvertedBatch. */
answerRequests<RawBatch, ConvertedBatch>((batch) => ({ answer: convertBatch(batch) }));
