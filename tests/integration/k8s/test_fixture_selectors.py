#!/usr/bin/python3
"""The fixture's label and field selector semantics, case by case, as
Kubernetes defines them (k8s.io/apimachinery labels.Parse and the pod field
selectors): which label sets a selector matches, and which selectors the
API server refuses with 400."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '../../fixtures/k8s'))
import k8s_selectors as s  # noqa: E402

A = {'app': 'tf', 'tier': 'worker', 'n': '5'}
B = {'app': 'tf', 'tier': 'ps'}
C = {'app': 'web'}
D = {}

# selector -> which of A, B, C, D it matches
MATCH = [
    ('', 'ABCD'),
    ('app=tf', 'AB'),
    ('app==tf', 'AB'),
    ('app = tf', 'AB'),
    ('app!=tf', 'CD'),                  # != also matches a missing key
    ('tier', 'AB'),
    ('!tier', 'CD'),
    ('tier in (worker, ps)', 'AB'),
    ('tier in (worker)', 'A'),
    ('tier notin (worker)', 'BCD'),     # notin also matches a missing key
    ('app=tf,tier!=ps', 'A'),
    ('app in (tf,web),!tier', 'C'),
    ('n>4', 'A'),
    ('n<5', ''),
    ('app=', ''),                       # empty value: key present with ""
    ('tier in (worker,)', 'A'),
    ('example.com/role', ''),
]

ERRORS = [
    ('tier in worker', "unable to parse requirement: found 'worker', expected: '('"),
    ('app=tf,', "unable to parse requirement: found '', expected: identifier"),
    ('=tf', "unable to parse requirement: found '=', expected: identifier"),
    ('app=t f', "unable to parse requirement: found 'f', expected: ',' or end of selector"),
    ('app=-tf', 'unable to parse requirement: values[0][app]: Invalid value: "-tf": a valid '
                'label must be an empty string or consist of alphanumeric characters, \'-\', '
                '\'_\' or \'.\', and must start and end with an alphanumeric character'),
    ('n>x', "unable to parse requirement: for 'Gt', 'Lt' operators, the value must be an "
            'integer'),
    ('Bad_Prefix/x', 'unable to parse requirement: key: Invalid value: "Bad_Prefix/x": '
                     'prefix part must be a lowercase RFC 1123 subdomain'),
]

POD = {'metadata': {'name': 'w-1', 'namespace': 'train'}, 'spec': {'nodeName': 'n1'},
       'status': {'phase': 'Running'}}
FIELDS = [
    ('status.phase=Running', True),
    ('status.phase!=Running', False),
    ('status.phase==Pending', False),
    ('metadata.name=w-1,metadata.namespace=train', True),
    ('spec.nodeName!=', True),
]


def main():
    passed = failed = 0

    def check(name, ok, detail):
        nonlocal passed, failed
        passed, failed = passed + ok, failed + (not ok)
        print(('ok - %s' if ok else 'not ok - %s\n  %s') % ((name,) if ok else (name, detail)))

    for sel, want in MATCH:
        reqs = s.parse_labels(sel)
        got = ''.join(k for k, labels in zip('ABCD', (A, B, C, D))
                      if s.match_labels(reqs, labels))
        check('labels %r' % sel, got == want, 'matches %r, want %r' % (got, want))
    for sel, want in ERRORS:
        try:
            s.parse_labels(sel)
            got = 'accepted'
        except s.SelectorError as e:
            got = str(e)
        check('refused %r' % sel, got == want, 'got %r, want %r' % (got, want))
    for sel, want in FIELDS:
        got = s.match_fields(s.parse_fields(sel), POD)
        check('fields %r' % sel, got == want, 'got %r' % got)
    try:
        s.parse_fields('spec.foo=x')
        got = 'accepted'
    except s.SelectorError as e:
        got = str(e)
    check('refused field spec.foo', got == 'field label not supported: spec.foo', got)
    print('%d passed, %d failed' % (passed, failed))
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
