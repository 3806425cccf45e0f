/* SPDX-License-Identifier: MIT */
/*
 * aws_xml.h - reading AWS Query-API answers with libxml2: DescribeInstances
 * pages through SAX2, the small answers (errors, STS) through xmlReader.
 *
 * Pure (libxml2 + GLib, no host calls): the fuzz target links it alone.
 * Elements are matched by local name, so the EC2 namespace
 * (http://ec2.amazonaws.com/doc/2016-11-15/) and STS's need no mapping.
 * DTDs are never loaded and entities other than the predefined ones are
 * not expanded (no XML_PARSE_NOENT, XML_PARSE_NONET).
 */
#ifndef AWS_XML_H
#define AWS_XML_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

/** Initialise libxml2 once, on the thread that will later start the
 *  page walks (libxml2's rule for using it from several threads). */
void aws_xml_init(void);

/**
 * aws_xml_text:
 * @paths: NULL-terminated element paths from the root, by local name
 *     ("ErrorResponse/Error/Code").
 * @values: (out) one slot per path: the text of the first element at that
 *     path (transfer full, g_free), or NULL when absent.
 * @why: (out) (transfer full) on false: "line N: reason".
 * Returns: false when @body is not well-formed XML.
 */
bool aws_xml_text(const char *body, size_t len, const char *const *paths, char **values,
		  char **why);

/** One instance of a DescribeInstances page. Borrowed for the callback. */
struct aws_instance {
	GString *id, *private_ip, *public_ip, *private_dns, *ipv6, *state;
	GPtrArray *tags; /* char *: key, value, key, value ... */
};

/** Called per instance in document order; return false to stop (then
 *  aws_xml_instances returns false with *@why as the callback set it). */
typedef bool (*aws_instance_fn)(const struct aws_instance *inst, void *user_data, char **why);

/**
 * aws_xml_instances:
 * Stream a DescribeInstancesResponse: call @fn for each
 * reservationSet/item/instancesSet/item with its instanceId,
 * privateIpAddress, ipAddress, privateDnsName, ipv6Address,
 * instanceState/name and tagSet/item/{key,value} (only the instance's own
 * fields: a network interface's privateIpAddress is not the instance's).
 * @next_token: (out) (transfer full) nextToken, or NULL on the last page.
 * @request_id: (out) (nullable) (transfer full) requestId.
 * @why: (out) (transfer full) on false: "line N: reason".
 * Returns: false on malformed XML, a root other than
 * DescribeInstancesResponse, or a callback's refusal.
 */
bool aws_xml_instances(const char *body, size_t len, aws_instance_fn fn, void *user_data,
		       char **next_token, char **request_id, char **why);

#endif /* AWS_XML_H */
