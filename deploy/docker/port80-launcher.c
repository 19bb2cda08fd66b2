/*
 * node-port80: starts node with the one capability a unit needs for port 80 in the host's network namespace
 * (`docker run --network host`), as the unprivileged user the image runs as.
 *
 * The image gives this small program, not node, the file capability cap_net_bind_service (permitted only):
 * a copy of node would double the image, and a capability on the image's own node would make every container
 * fail to start where that capability is dropped (`--cap-drop ALL`). The program raises the capability into
 * its inheritable and ambient sets, which exec hands on to node and to nothing else, and then runs node with
 * its own arguments. Under `no-new-privileges` the kernel ignores file capabilities: it then says so and stops.
 */
#include <linux/capability.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv) {
  (void)argc;
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct data[2];
  if (syscall(SYS_capget, &header, data) != 0) {
    perror("node-port80: capget");
    return 126;
  }
  data[0].inheritable |= 1u << CAP_NET_BIND_SERVICE;
  if (syscall(SYS_capset, &header, data) != 0 ||
      prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, CAP_NET_BIND_SERVICE, 0, 0) != 0) {
    perror("node-port80: CAP_NET_BIND_SERVICE is not granted (dropped, or no-new-privileges)");
    return 126;
  }
  argv[0] = (char *)"node";
  execvp("node", argv);
  perror("node-port80: node");
  return 127;
}
