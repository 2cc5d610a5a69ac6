import { ApplicationFailure } from '@temporalio/activity';

/** A snapshot that must not be published; the run fails and live data stays as it was. */
export function validationFailure(message: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(message, 'ValidationFailed');
}
