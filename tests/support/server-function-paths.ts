/**
 * The request paths of the app's server functions, as Start's compiler names them (file and
 * export name): written out, not derived, so that a change in the naming fails the tests that
 * call them. Add `?createServerFn` for a call the way Start's client makes it.
 */
export const FAILING_EXAMPLE_FN =
  '/_server/app_server_example_functions_ts--callFailingExample_createServerFn_handler';
export const LIST_INBOX_ISSUES_FN =
  '/_server/app_server_inbox_inbox_functions_ts--listInboxIssues_createServerFn_handler';
export const GET_INBOX_ISSUE_FN =
  '/_server/app_server_inbox_inbox_functions_ts--getInboxIssue_createServerFn_handler';
export const TRIAGE_ISSUES_FN =
  '/_server/app_server_inbox_inbox_functions_ts--triageIssues_createServerFn_handler';
export const GET_INBOX_EVENT_FN =
  '/_server/app_server_inbox_inbox_functions_ts--getInboxEvent_createServerFn_handler';
export const CLEAR_INBOX_FN =
  '/_server/app_server_inbox_inbox_functions_ts--clearInbox_createServerFn_handler';
export const SEND_TEST_ALERT_FN =
  '/_server/app_server_inbox_inbox_functions_ts--sendTestAlert_createServerFn_handler';
export const SIGN_IN_TO_INBOX_FN =
  '/_server/app_server_inbox_inbox_functions_ts--signInToInbox_createServerFn_handler';
export const GET_APP_OVERVIEW_FN =
  '/_server/app_server_app-info_functions_ts--getAppOverview_createServerFn_handler';
export const SIGN_OUT_OF_INBOX_FN =
  '/_server/app_server_inbox_inbox_functions_ts--signOutOfInbox_createServerFn_handler';
export const GET_RUNTIME_HEALTH_FN =
  '/_server/app_server_app-info_functions_ts--getRuntimeHealth_createServerFn_handler';
