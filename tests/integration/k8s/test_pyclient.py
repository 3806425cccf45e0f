#!/usr/bin/python3
"""The fixture is faithful to the official Python client (python3-kubernetes,
what TensorFlow's KubernetesClusterResolver uses): it lists the realistic
pods page by page (limit/continue), deserialises them into its models
(managedFields of three managers, three containers with env, resources and
mounts, a projected volume, tolerations, conditions, container statuses),
and the plugin resolves exactly the Running pods it lists, full pods and
Table rows alike.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_harness as h  # noqa: E402

CASES = [('train', 'job-name=worker', 2), ('train', 'app=ps', 1), ('bench', 'job-name=gen', 7)]


def natkey(name):
    import re
    return [(0, int(t), '') if t.isdigit() else (1, 0, t) for t in re.findall(r'\d+|\D+', name)]


def plugin(fx, ns, sel, extra):
    conf = ('resolvers = ( { plugin = "k8s"; kubeconfig = "%s"; namespace = "%s"; '
            'not_running = "skip"; order = "name"; page_size = 3; jobs = { x = [ %s ]; }; %s } );\n'
            % (fx.kubeconfig, ns, json.dumps(sel), extra))
    rc, out, err = h.run_cli(fx, conf, ['resolve', '--format', 'json'])
    if rc != 0:
        raise RuntimeError('cluster-resolver failed: %s' % err.strip())
    return json.loads(out)['cluster']['x']


def main():
    h.ensure_hermetic()
    h.need('CR_CLI')
    try:
        from kubernetes import client, config
    except ImportError:
        print('SKIP: python3-kubernetes is not installed')
        sys.exit(77)
    res = h.Results()
    fx = h.Fixture(pods=os.path.join(h.HERE, 'pods.json'), extra=['--generate', 'gen=23:bench'])
    try:
        api = client.CoreV1Api(config.new_client_from_config(config_file=fx.kubeconfig))
        for ns, sel, limit in CASES:
            pods, cont, pages = [], None, 0
            while True:
                ret = api.list_namespaced_pod(ns, label_selector=sel, limit=limit,
                                              _continue=cont)
                pods.extend(ret.items)
                pages += 1
                cont = ret.metadata._continue
                if not cont:
                    break
            problems = []
            if len(pods) < 2 or pages < 2:
                problems.append('listed %d pods in %d pages' % (len(pods), pages))
            for p in pods:
                mf = p.metadata.managed_fields or []
                cs = p.spec.containers
                if [m.manager for m in mf] != ['kube-controller-manager', 'kueue', 'kubelet'] \
                        or mf[2].subresource != 'status' or mf[0].fields_type != 'FieldsV1':
                    problems.append('%s: managedFields %s' % (p.metadata.name,
                                                              [m.manager for m in mf]))
                if len(cs) != 3 or not cs[0].env or not cs[0].volume_mounts \
                        or cs[0].resources.limits.get('cpu') != '4':
                    problems.append('%s: containers %s' % (p.metadata.name, [c.name for c in cs]))
                if not any(v.projected for v in p.spec.volumes) or not p.spec.tolerations:
                    problems.append('%s: volumes or tolerations missing' % p.metadata.name)
                if p.status.phase == 'Running' and (len(p.status.container_statuses) != 3 or
                                                    not p.status.conditions):
                    problems.append('%s: status %s' % (p.metadata.name, p.status.phase))
            running = sorted((p for p in pods if p.status.phase == 'Running'),
                             key=lambda p: natkey(p.metadata.name))
            want = ['%s:8470' % p.status.pod_ip for p in running]
            for form, extra, want_type in (
                    ('full pods', '', 'application/vnd.kubernetes.protobuf'),
                    ('full pods, JSON', 'list_format = "json";', 'application/json'),
                    ('Table rows', 'accelerators = false;',
                     'application/json;as=Table;v=v1;g=meta.k8s.io')):
                n0 = len(fx.requests())
                got = plugin(fx, ns, sel, extra)
                types = {r.get('type') for r in fx.requests()[n0:] if r['path'].endswith('/pods')}
                if types != {want_type}:
                    problems.append('plugin (%s) got answers of type %s' % (form, types))
                if got != want:
                    problems.append('plugin (%s) %s\n  python3-kubernetes %s' % (form, got, want))
            res.check('python3-kubernetes list_namespaced_pod(%s, %r, limit=%d)' % (ns, sel, limit),
                      not problems, '\n'.join('  ' + p for p in problems))
    finally:
        fx.stop(keep=res.failed > 0)
    res.finish()


if __name__ == '__main__':
    main()
