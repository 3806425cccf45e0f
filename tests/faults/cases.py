"""The fault matrix (fault_matrix.py) as data: one entry per fault, and per
backend what `cluster-resolver resolve` must do. A backend entry is a dict:
    rc      exit status (default 1)
    msg     the one line on stderr, literal text but for @URL@
            (https://127.0.0.1:PORT of the server the plugin was sent to)
            and @N@ (a number: byte counts, which vary with the data)
    bound   seconds within which it must end: a hang detector, generous
            (default 10; stretched 3x in the sanitizer build)
    least   seconds it must at least take (a Retry-After honoured)
    faults  the fixture's fault objects (default: the case's)
    target  where the plugin is sent instead of its fixture: silent (a port
            that accepts and never answers), foreign_ca (TLS with a
            certificate from another CA), other_name (TLS from the trusted
            CA for another host name)
    token   k8s: the bearer token in the kubeconfig; gce/tpu: "metadata"
            (the token comes from the metadata server, no access_token_file)
    env     variables added to the backend's environment
A case may also set request_timeout (seconds, for every backend) in place of
the matrix's 1.5 s, and list_timeout (gce and aws; default: the plugin's).
A backend entry may instead be a string: the fault does not apply to this
backend, and why.
Stdout must be empty in every case. Every backend runs with short timeouts
from its own options (fault_matrix.py: connect 1 s, request 1.5 s, one
retry, Retry-After honoured up to 3 s; k8s list_timeout 3 s), each times
SCALE (harness.time_scale: valgrind, ASan, $CR_TIME_SCALE).
"""
import email.utils
import os
import time

from harness import time_scale

# The timeouts every backend gets (fault_matrix.py), scaled with the tool
# the CLI runs under (valgrind, ASan) and $CR_TIME_SCALE: the messages that
# name them say the scaled values.
SCALE = time_scale(valgrind=os.environ.get('CR_FAULTS_VALGRIND', '0') != '0')
CONNECT_TIMEOUT = 1.0 * SCALE
REQUEST_TIMEOUT = 1.5 * SCALE
LIST_TIMEOUT = 3.0 * SCALE   # k8s

K = ("cluster-resolver: resolver 'k8s': GET @URL@/api/v1/namespaces/train/pods"
     "?labelSelector=job-name=worker: ")
K_SENT = ("cluster-resolver: resolver 'k8s': GET @URL@/api/v1/namespaces/train/pods"
          "?labelSelector=job-name%3Dworker&limit=2: ")
G = ("cluster-resolver: resolver 'gce': POST @URL@/compute/v1/projects/proj-1/zones/"
     "us-central1-a/instanceGroups/trainers/listInstances: ")
G_SENT = G[:-2] + '?maxResults=5&fields=items%28instance%29%2CnextPageToken: '
T = ("cluster-resolver: resolver 'tpu': GET @URL@/v2/projects/tpu-proj/locations/"
     "us-central2-b/nodes/ready: ")
A = "cluster-resolver: resolver 'aws': POST @URL@/: "

UNAUTH = ('HTTP 401: Request had invalid authentication credentials. Expected OAuth 2 access '
          'token, login cookie or other valid authentication credential. See '
          'https://developers.google.com/identity/sign-in/web/devconsole-project.')
SCOPES = 'HTTP 403: Request had insufficient authentication scopes.'
AWS_429 = {'status': 429, 'count': -1, 'code': 'Throttling', 'message': 'Rate exceeded'}


def http_date(ahead, **more):
    """Faults whose Retry-After is an HTTP-date @ahead seconds from now
    (made when the case runs; whole seconds, so the wait is ahead-1..ahead)."""
    def make():
        return [dict({'status': 429, 'count': -1,
                      'retry_after': email.utils.formatdate(time.time() + ahead, usegmt=True)},
                     **more)]
    return make


def timed_out(prefix):
    return prefix + 'timed out (connect_timeout %.1f s, request_timeout %.1f s)' % (
        CONNECT_TIMEOUT, REQUEST_TIMEOUT)


NO_ANSWER = 'no answer within request_timeout %.1f s' % REQUEST_TIMEOUT
# A body that stalls past every request_timeout, however scaled.
SLOW_BODY = 4 * REQUEST_TIMEOUT


CASES = [
    dict(name='5xx', faults=[{'status': 503, 'count': -1}],
         k8s=dict(msg=K + 'HTTP 503 ServiceUnavailable: the server is currently unable to '
                  'handle the request (after 2 attempts)'),
         gce=dict(msg=G + 'HTTP 503: Service Unavailable (after 2 attempts)'),
         tpu=dict(msg=T + 'HTTP 503: Service Unavailable (after 2 attempts)'),
         aws=dict(msg=A + 'HTTP 503: InternalError: An internal error has occurred '
                  '(after 2 attempts)')),
    # Retry-After as delta-seconds: the wait is honoured (least), then one
    # more 429 ends it. aws follows botocore, which retries throttling codes
    # with its own backoff and does not read Retry-After.
    dict(name='429-retry-after-seconds', least=0.9,
         faults=[{'status': 429, 'retry_after': '1', 'count': -1}],
         k8s=dict(msg=K + 'HTTP 429 TooManyRequests: Too many requests, please try again '
                  'later. (after 2 attempts)'),
         gce=dict(msg=G + 'HTTP 429: Rate Limit Exceeded (after 2 attempts)'),
         tpu=dict(msg=T + 'HTTP 429: Rate Limit Exceeded (after 2 attempts)'),
         aws=dict(msg=A + 'HTTP 429: Throttling: Rate exceeded (after 2 attempts)', least=None,
                  faults=[dict(AWS_429, retry_after='1')])),
    dict(name='429-retry-after-http-date', least=0.9, faults=http_date(2),
         k8s=dict(msg=K + 'HTTP 429 TooManyRequests: Too many requests, please try again '
                  'later. (after 2 attempts)'),
         gce=dict(msg=G + 'HTTP 429: Rate Limit Exceeded (after 2 attempts)'),
         tpu=dict(msg=T + 'HTTP 429: Rate Limit Exceeded (after 2 attempts)'),
         aws=dict(msg=A + 'HTTP 429: Throttling: Rate exceeded (after 2 attempts)', least=None,
                  faults=http_date(2, code='Throttling', message='Rate exceeded'))),
    dict(name='410', faults=[{'status': 410, 'count': -1}],
         k8s=dict(msg=K + 'HTTP 410 Expired: fixture fault'),
         gce=dict(msg=G + 'HTTP 410: error'),
         tpu=dict(msg=T + 'HTTP 410: error'),
         aws=dict(msg=A + 'HTTP 410: InternalError: An internal error has occurred')),
    dict(name='endless-same-token', faults=[{'endless': 'same', 'count': -1}],
         k8s=dict(msg=K + 'page 2 repeats an earlier continue token; the list would never end'),
         gce=dict(msg=G + 'the same nextPageToken twice'),
         tpu='a node is one GET: no pages',
         aws=dict(msg=A + "job 'worker': page 2 repeats the NextToken it was asked with; "
                  'stopping', faults=[{'repeat_token': True, 'count': -1}])),
    dict(name='endless-fresh-token', faults=[{'endless': 'fresh', 'count': -1}],
         k8s=dict(msg=K + 'the list did not end within list_timeout (%.1f s)' % LIST_TIMEOUT),
         gce=dict(msg=G + '100 pages in a row without items, each with a nextPageToken: the '
                  'list does not end'),
         tpu='a node is one GET: no pages',
         aws=dict(msg=A + "job 'worker': 1000 pages in a row without instances, each with a "
                  'NextToken; stopping', faults=[{'endless_fresh': True, 'count': -1}])),
    dict(name='truncated-body', faults=[{'truncate': True, 'count': -1}],
         k8s=dict(msg=K_SENT + 'transfer closed with @N@ bytes remaining to read'),
         gce=dict(msg=G_SENT + 'transfer closed with @N@ bytes remaining to read '
                  '(after 2 attempts)'),
         tpu=dict(msg=T + 'transfer closed with @N@ bytes remaining to read (after 2 attempts)'),
         aws=dict(msg=A + 'transfer closed with @N@ bytes remaining to read')),
    dict(name='slow-body', faults=[{'slow_body': SLOW_BODY, 'count': -1}],
         k8s=dict(msg=timed_out(K)),
         gce=dict(msg=G + NO_ANSWER),
         tpu=dict(msg=T + NO_ANSWER),
         aws=dict(msg=timed_out(A))),
    dict(name='silent-server', target='silent',
         k8s=dict(msg=timed_out(K)),
         gce=dict(msg=G + NO_ANSWER),
         tpu=dict(msg=T + NO_ANSWER),
         aws=dict(msg=timed_out(A))),
    dict(name='wrong-ca', target='foreign_ca',
         k8s=dict(msg=K_SENT + 'SSL certificate problem: unable to get local issuer certificate'),
         gce=dict(msg=G_SENT + 'SSL certificate problem: unable to get local issuer certificate'),
         tpu=dict(msg=T + 'SSL certificate problem: unable to get local issuer certificate'),
         aws=dict(msg=A + 'SSL certificate problem: unable to get local issuer certificate')),
    dict(name='wrong-host-name', target='other_name',
         k8s=dict(msg=K_SENT + "SSL: no alternative certificate subject name matches target "
                  "host name '127.0.0.1'"),
         gce=dict(msg=G_SENT + "SSL: no alternative certificate subject name matches target "
                  "host name '127.0.0.1'"),
         tpu=dict(msg=T + "SSL: no alternative certificate subject name matches target host "
                  "name '127.0.0.1'"),
         aws=dict(msg=A + "SSL: no alternative certificate subject name matches target host "
                  "name '127.0.0.1'")),
    # k8s: a token the server no longer accepts; gce/tpu: the metadata
    # server's token expires as the API sees it; aws: EC2's answer to
    # expired temporary credentials.
    dict(name='expired-token',
         k8s=dict(msg=K + 'HTTP 401 Unauthorized: Unauthorized', token='expired-token-0123'),
         gce=dict(msg=G + UNAUTH, token='metadata',
                  faults=[{'expire_tokens': True, 'count': -1, 'path': 'listInstances'}]),
         tpu=dict(msg=T + UNAUTH, token='metadata',
                  faults=[{'expire_tokens': True, 'count': -1, 'path': '/nodes/'}]),
         aws=dict(msg=A + 'HTTP 400: RequestExpired: Request has expired.',
                  faults=[{'status': 400, 'code': 'RequestExpired',
                           'message': 'Request has expired.', 'count': -1}])),
    dict(name='401', faults=[{'status': 401, 'count': -1}],
         k8s=dict(msg=K + 'HTTP 401 Unauthorized: fixture fault'),
         gce=dict(msg=G + 'HTTP 401: error'),
         tpu=dict(msg=T + 'HTTP 401: error'),
         aws=dict(msg=A + 'HTTP 401: AuthFailure: AWS was not able to validate the provided '
                  'access credentials',
                  faults=[{'status': 401, 'code': 'AuthFailure', 'count': -1,
                           'message': 'AWS was not able to validate the provided access '
                                      'credentials'}])),
    dict(name='403', faults=[{'status': 403, 'count': -1}],
         k8s=dict(msg=K + 'HTTP 403 Forbidden: fixture fault'),
         gce=dict(msg=G + SCOPES),
         tpu=dict(msg=T + SCOPES),
         aws=dict(msg=A + 'HTTP 403: UnauthorizedOperation: You are not authorized to perform '
                  'this operation.',
                  faults=[{'status': 403, 'code': 'UnauthorizedOperation', 'count': -1,
                           'message': 'You are not authorized to perform this operation.'}])),
    # 300 MiB announced in Content-Length: every backend refuses the answer
    # by the host's 256 MiB cap on one answer before its body comes (the
    # fixture sends its first bytes and then waits: a client that waited
    # for the body would time out instead).
    dict(name='oversize', faults=[{'oversize': 300 << 20, 'count': -1}],
         k8s=dict(msg=K_SENT + 'response larger than 268435456 bytes'),
         gce=dict(msg=G_SENT + 'response larger than 268435456 bytes'),
         tpu=dict(msg=T + 'response larger than 268435456 bytes'),
         aws=dict(msg=A + 'response larger than 268435456 bytes')),
    # The same streamed without a length (the body ends when the connection
    # does): the host counts and stops at the cap. Receiving 256 MiB takes
    # seconds on a loaded machine under ASan, so this case alone has a
    # request_timeout of 30 s; not under valgrind, which takes minutes.
    dict(name='oversize-unannounced', request_timeout=30, valgrind=False,
         faults=[{'oversize': 300 << 20, 'unannounced': True, 'count': -1}],
         k8s=dict(msg=K_SENT + 'response larger than 268435456 bytes'),
         gce=dict(msg=G_SENT + 'response larger than 268435456 bytes'),
         tpu=dict(msg=T + 'response larger than 268435456 bytes'),
         aws=dict(msg=A + 'response larger than 268435456 bytes')),
    # A server that reflects the credentials it was sent in its error
    # message (issue 27 item 6): every credential the plugin sent is cut
    # out of what it prints. aws: an EC2 session token.
    dict(name='echoes-credentials',
         k8s=dict(msg=K + 'HTTP 403 Forbidden: fixture fault (you sent Bearer [redacted])',
                  faults=[{'status': 403, 'echo_auth': True, 'count': -1}]),
         gce=dict(msg=G + 'HTTP 403: denied (you sent Bearer [redacted])',
                  faults=[{'status': 403, 'message': 'denied', 'echo_auth': True,
                           'count': -1}]),
         tpu=dict(msg=T + 'HTTP 403: denied (you sent Bearer [redacted])',
                  faults=[{'status': 403, 'message': 'denied', 'echo_auth': True,
                           'count': -1}]),
         aws=dict(msg=A + 'HTTP 403: UnauthorizedOperation: denied (you sent [redacted])',
                  env={'AWS_SESSION_TOKEN': 'FwoGZXIvYXdzEXAMPLEsessiontoken0123456789'},
                  faults=[{'status': 403, 'code': 'UnauthorizedOperation', 'message': 'denied',
                           'echo_token': True, 'count': -1}])),
    # A 200 whose body is JSON of the wrong type (issue 27 item 4): an error
    # naming the URL, never an empty group. aws: XML that is not the answer.
    dict(name='body-wrong-type-array', faults=[{'body': '[1, 2]', 'count': -1}],
         k8s=dict(msg=K + 'invalid JSON at line 1, column 1 (offset 0): the answer is not a JSON object'),
         gce=dict(msg=G[:-2] + ': the answer is an array, not a JSON object'),
         tpu=dict(msg=T + 'the answer is an array, not a JSON object'),
         aws=dict(msg=A + 'malformed DescribeInstances answer: line 1: Document is empty', faults=[{'body': '[1, 2]', 'count': -1}])),
    dict(name='body-wrong-type-null', faults=[{'body': 'null', 'count': -1}],
         k8s=dict(msg=K + 'invalid JSON at line 1, column 1 (offset 0): the answer is not a JSON object'),
         gce=dict(msg=G[:-2] + ': the answer is null, not a JSON object'),
         tpu=dict(msg=T + 'the answer is null, not a JSON object'),
         aws=dict(msg=A + 'malformed DescribeInstances answer: line 1: <Other> is not a DescribeInstancesResponse', faults=[{'body': '<Other xmlns="x"/>', 'count': -1}])),
    dict(name='body-wrong-type-string', faults=[{'body': '"hello"', 'count': -1}],
         k8s=dict(msg=K + 'invalid JSON at line 1, column 1 (offset 0): the answer is not a JSON object'),
         gce=dict(msg=G[:-2] + ': the answer is a string, not a JSON object'),
         tpu=dict(msg=T + 'the answer is a string, not a JSON object'),
         aws=dict(msg=A + 'malformed DescribeInstances answer: line 1: Document is empty', faults=[{'body': '"hello"', 'count': -1}])),
    # Every page brings items and a fresh token (issue 27 item 3): the list
    # ends at list_timeout or its page cap, 10 pages per second of it; the
    # cases set list_timeout = 2 (the least is 1): 20 pages at most.
    dict(name='endless-with-items', list_timeout=2,
         k8s='k8s has list_timeout and max_pages (issue 11)',
         gce=dict(msg=G[:-2] + ': the list did not end within list_timeout (2.0 s) or 20 pages '
                  '(10 per second of list_timeout)', faults=[{'endless': 'items', 'count': -1}]),
         tpu='a node is one GET: no pages',
         aws=dict(msg=A + "job 'worker': the listing did not end within list_timeout (2.0 s) or "
                  '20 pages (10 per second of list_timeout); stopping',
                  faults=[{'endless_items': True, 'count': -1}])),
]


# ---- watch variants (k8s): watch_faults.py ---------------------------------
# Each fault is served to the k8s plugin's watch requests only ("watch":
# true), after a first list of 6 pods, while cr_context_watch waits 4 s for
# a second generation (k8s-watch-driver). A case says:
#     out       stdout after the first generation's line, exactly
#     warn      the pattern (@URL@, @N@) of every stderr line: the host's
#               warning for a failed watch op, then its backoff; None: none
#     requests  the pod requests the fixture saw, in order, from the start
#               ('list' or 'watch'); a trailing '...' allows more
KW = ("cluster-resolver: warning: resolver 'k8s': watch failed: GET @URL@/api/v1/namespaces/"
      "train/pods?labelSelector=job-name=worker (watch): ")
KW_SENT = ("cluster-resolver: warning: resolver 'k8s': watch failed: GET @URL@/api/v1/namespaces/"
           "train/pods: ")
NEXT = '; resolving again, next watch in @N@ ms'
NO_CHANGE = ['no change within 4000 ms']

WATCH_CASES = [
    dict(name='watch-5xx', faults=[{'status': 503, 'count': -1, 'watch': True}],
         out=NO_CHANGE,
         warn=KW[:-2] + ': HTTP 503 ServiceUnavailable: the server is currently unable to '
         'handle the request (still failing after 2 reconnections)' + NEXT,
         requests=['list', 'watch', 'watch', 'list', 'watch', '...']),
    dict(name='watch-410', faults=[{'status': 410, 'count': 1, 'watch': True}],
         out=NO_CHANGE, warn=None, requests=['list', 'watch', 'list', 'watch', '...']),
    dict(name='watch-403', faults=[{'status': 403, 'count': -1, 'watch': True,
                                    'message': 'pods is forbidden: cannot watch'}],
         out=NO_CHANGE, warn=KW + 'HTTP 403 Forbidden: pods is forbidden: cannot watch' + NEXT,
         requests=['list', 'watch', 'list', '...']),
    dict(name='watch-dropped-mid-event', faults=[{'truncate': True, 'count': 1, 'watch': True}],
         out=NO_CHANGE, warn=None, requests=['list', 'watch', 'watch', '...']),
    dict(name='watch-garbage', faults=[{'body': '{"type":"MODIFIED","object":{"kind":tru\n',
                                        'count': 1, 'watch': True}],
         out=NO_CHANGE, warn=KW + 'event 1 is not a JSON watch event' + NEXT,
         requests=['list', 'watch', 'list', 'watch', '...']),
    dict(name='watch-error-event', faults=[{
        'body': '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":'
                '"Failure","message":"etcdserver: request timed out","reason":'
                '"InternalError","code":500}}\n', 'count': 1, 'watch': True}],
         out=NO_CHANGE, warn=KW + 'ERROR event: InternalError: etcdserver: request timed out'
         + NEXT, requests=['list', 'watch', 'list', 'watch', '...']),
    dict(name='watch-error-event-410', faults=[{
        'body': '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":'
                '"Failure","message":"too old resource version: 1 (2)","reason":"Expired",'
                '"code":410}}\n', 'count': 1, 'watch': True}],
         out=NO_CHANGE, warn=None, requests=['list', 'watch', 'list', 'watch', '...']),
    dict(name='watch-ends-at-once', faults=[{'body': '', 'count': 2, 'watch': True}],
         out=NO_CHANGE, warn=None, requests=['list', 'watch', 'watch', 'watch', '...']),
]
