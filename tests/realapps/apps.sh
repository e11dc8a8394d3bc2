#!/bin/bash
# apps.sh APP start DIR PORT [PAGES] | APP stop DIR — a real web application
# from Debian 12's packages, with its packaged defaults, on
# 127.0.0.1:PORT, everything it runs and writes under the scratch
# directory DIR (no system service, nothing under /etc touched).
#
#   dokuwiki  DokuWiki (package dokuwiki) under a private php-fpm
#             (a unix socket in DIR) and a private nginx; its code from
#             /usr/share/dokuwiki, its configuration /etc/dokuwiki's
#             copied into DIR/conf, its data directory a copy of the
#             package's with PAGES wiki pages added (content.py)
#   cgit      cgit (package cgit) through fcgiwrap and nginx at /cgit/, as
#             Debian's Apache snippet places it, over two git repositories
#             built in DIR/repos
#   fossil    `fossil server` on a repository file DIR/docs.fossil
#   wordpress WordPress (package wordpress, its theme package
#             wordpress-theme-twentytwentythree) under php-fpm and nginx,
#             a copy of its code in DIR/wordpress with a wp-config.php of
#             its own (Debian's reads /etc/wordpress), its database in a
#             private mariadbd (DIR/mysql, a unix socket, no network),
#             posts from content.py inserted by WordPress's own functions;
#             its URLs are WordPress's defaults (plain ?p=N permalinks)
#
# Two settings differ from the packages' defaults, each because the
# default shows a crawler nothing: cgit's robots meta says follow (its
# default, "index, nofollow", ends a crawl at the front page), and
# Fossil's user nobody has the hyperlink capability h (without it Fossil
# writes no links for robots).
#
# start builds DIR's content the first time (a second start reuses it),
# starts the servers, waits until the front page answers and prints its
# URL path; it fails, having stopped what it started, when the page does
# not answer within 20 s.  stop ends every process start started (by the
# pid files in DIR) and waits for them.  The access log is DIR/access.log
# (nginx's combined format; fossil keeps none, so DIR/access.log stays
# empty for it).
set -u
here=$(cd "$(dirname "$0")" && pwd)
# php-fpm8.2, nginx and fcgiwrap live in sbin, which a user's PATH may lack.
PATH=$PATH:/usr/sbin:/sbin

usage()
{
	echo "usage: apps.sh dokuwiki|cgit|fossil|wordpress start DIR PORT [PAGES]" >&2
	echo "       apps.sh dokuwiki|cgit|fossil|wordpress stop DIR" >&2
	exit 2
}

[ $# -ge 3 ] || usage
app=$1
action=$2
dir=$3
port=${4:-}
pages=${5:-300}

need()
{
	local p
	for p in "$@"; do
		if ! command -v "$p" >/dev/null 2>&1 && [ ! -e "$p" ]; then
			echo "apps.sh: $app needs $p (packaging/test-deps.txt)" >&2
			exit 1
		fi
	done
}

# The nginx of DIR: its config, with the server block of the app
# (standard input) inside.  Run as root, workers stay root so that they
# reach DIR's sockets whatever DIR's mode is.
write_nginx()
{
	local user=
	[ "$(id -u)" -eq 0 ] && user="user root;"
	mkdir -p "$dir/nginx-tmp"
	{
		cat <<-EOF
		$user
		worker_processes 2;
		pid $dir/nginx.pid;
		error_log $dir/nginx-error.log;
		events { worker_connections 512; }
		http {
		  include /etc/nginx/mime.types;
		  default_type application/octet-stream;
		  access_log $dir/access.log;
		  client_body_temp_path $dir/nginx-tmp/body;
		  fastcgi_temp_path $dir/nginx-tmp/fastcgi;
		  proxy_temp_path $dir/nginx-tmp/proxy;
		  uwsgi_temp_path $dir/nginx-tmp/uwsgi;
		  scgi_temp_path $dir/nginx-tmp/scgi;
		  server {
		    listen 127.0.0.1:$port;
		    server_name _;
		EOF
		cat
		echo "  }"
		echo "}"
	} >"$dir/nginx.conf"
}

start_nginx()
{
	nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/nginx-error.log" ||
		return 1
}

start_dokuwiki()
{
	need nginx php-fpm8.2 /usr/share/dokuwiki/doku.php
	if [ ! -d "$dir/data" ]; then
		cp -a /var/lib/dokuwiki/data "$dir/data" || return 1
		# The configuration: the package's, its links (the ACL and the
		# user list in /var/lib/dokuwiki/acl) copied as files.
		cp -rL /etc/dokuwiki "$dir/conf" || return 1
		echo "\$conf['savedir'] = '$dir/data';" >>"$dir/conf/local.php"
		python3 "$here/content.py" dokuwiki "$dir/data" "$pages" ||
			return 1
	fi
	mkdir -p "$dir/sessions"
	# Debian's inc/preload.php keeps a DOKU_CONF defined before it.
	printf "<?php define('DOKU_CONF', '%s/conf/');\n" "$dir" >"$dir/prepend.php"
	local user=
	[ "$(id -u)" -eq 0 ] && user="user = root"
	cat >"$dir/php-fpm.conf" <<-EOF
	[global]
	pid = $dir/php-fpm.pid
	error_log = $dir/php-fpm.log
	daemonize = yes
	[dokuwiki]
	$user
	listen = $dir/php-fpm.sock
	listen.mode = 0666
	pm = static
	pm.max_children = 4
	php_admin_value[auto_prepend_file] = $dir/prepend.php
	php_admin_value[session.save_path] = $dir/sessions
	php_admin_value[error_log] = $dir/php-errors.log
	EOF
	php-fpm8.2 -R -y "$dir/php-fpm.conf" -p "$dir" || return 1
	write_nginx <<-EOF
	    root /usr/share/dokuwiki;
	    index doku.php;
	    location ~ ^/(data|conf|bin|inc|vendor)/ { deny all; }
	    location ~ /\.ht { deny all; }
	    location ~ \.php(\$|/) {
	      fastcgi_split_path_info ^(.+?\.php)(/.*)\$;
	      include /etc/nginx/fastcgi_params;
	      fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
	      fastcgi_param PATH_INFO \$fastcgi_path_info;
	      fastcgi_pass unix:$dir/php-fpm.sock;
	    }
	EOF
	start_nginx || return 1
	front=/
}

start_cgit()
{
	need nginx fcgiwrap git /usr/lib/cgit/cgit.cgi
	if [ ! -d "$dir/repos" ]; then
		python3 "$here/content.py" git "$dir/repos" || return 1
		rm -rf "$dir/repos"/*.work
	fi
	# The package's /etc/cgitrc, then the repositories (scan-path comes
	# last: options after it do not apply to what it found).  cgit's
	# default robots meta is "index, nofollow" on every page, which would
	# end a crawl at the front page: a public cgit that wants to be
	# crawled says follow.
	cat >"$dir/cgitrc" <<-EOF
	include=/etc/cgitrc
	robots=index, follow
	scan-path=$dir/repos
	EOF
	setsid fcgiwrap -c 4 -s "unix:$dir/fcgiwrap.sock" </dev/null \
		>>"$dir/fcgiwrap.log" 2>&1 &
	echo $! >"$dir/fcgiwrap.pid"
	wait_for_socket "$dir/fcgiwrap.sock" || return 1
	write_nginx <<-EOF
	    location = / { return 302 /cgit/; }
	    location = /cgit { return 301 /cgit/; }
	    location /cgit-css/ { alias /usr/share/cgit/; }
	    location /cgit/ {
	      fastcgi_split_path_info ^(/cgit)(/.*)\$;
	      include /etc/nginx/fastcgi_params;
	      fastcgi_param SCRIPT_FILENAME /usr/lib/cgit/cgit.cgi;
	      fastcgi_param SCRIPT_NAME /cgit;
	      fastcgi_param PATH_INFO \$fastcgi_path_info;
	      fastcgi_param CGIT_CONFIG $dir/cgitrc;
	      fastcgi_pass unix:$dir/fcgiwrap.sock;
	    }
	EOF
	start_nginx || return 1
	front=/cgit/
}

start_fossil()
{
	need fossil
	if [ ! -f "$dir/docs.fossil" ]; then
		python3 "$here/content.py" fossil "$dir/docs.fossil" || return 1
		rm -rf "$dir/docs.fossil.work"
	fi
	: >"$dir/access.log"
	HOME=$dir setsid fossil server --localhost --port "$port" \
		"$dir/docs.fossil" </dev/null >>"$dir/fossil.log" 2>&1 &
	echo $! >"$dir/fossil.pid"
	front=/
}

start_wordpress()
{
	need nginx php-fpm8.2 mariadbd mariadb-install-db mariadb php \
		/usr/share/wordpress/wp-settings.php \
		/usr/share/wordpress/wp-content/themes/twentytwentythree
	local fresh=
	if [ ! -d "$dir/mysql" ]; then
		fresh=1
		mariadb-install-db --no-defaults --datadir="$dir/mysql" \
			--user="$(id -un)" --auth-root-authentication-method=normal \
			--skip-test-db >"$dir/mariadb-install.log" 2>&1 || return 1
		# Debian's wp-config.php reads /etc/wordpress/config-HOST.php:
		# a private copy of the code takes its own wp-config.php instead.
		cp -a /usr/share/wordpress "$dir/wordpress" || return 1
		rm -f "$dir/wordpress/.htaccess"
		mkdir -p "$dir/wordpress/wp-content/uploads"
		cat >"$dir/wordpress/wp-config.php" <<-EOF
		<?php
		define('DB_NAME', 'wordpress');
		define('DB_USER', 'root');
		define('DB_PASSWORD', '');
		define('DB_HOST', 'localhost:$dir/mysql.sock');
		define('WP_HOME', 'http://wordpress.test');
		define('WP_SITEURL', 'http://wordpress.test');
		define('WP_AUTO_UPDATE_CORE', false);
		define('DISABLE_WP_CRON', true);
		\$table_prefix = 'wp_';
		if (!defined('ABSPATH')) define('ABSPATH', '$dir/wordpress/');
		require_once ABSPATH . 'wp-settings.php';
		EOF
	fi
	setsid mariadbd --no-defaults --datadir="$dir/mysql" \
		--socket="$dir/mysql.sock" --skip-networking \
		--pid-file="$dir/mariadb.pid" --user="$(id -un)" \
		--log-error="$dir/mariadb.log" </dev/null >/dev/null 2>&1 &
	echo $! >"$dir/mariadbd.pid"
	wait_for_socket "$dir/mysql.sock" || return 1
	if [ -n "$fresh" ]; then
		mariadb --no-defaults -S "$dir/mysql.sock" -u root \
			-e "CREATE DATABASE wordpress" || return 1
		python3 "$here/content.py" wordpress "$dir/posts.json" || return 1
		# WordPress's own installer and wp_insert_post(), from PHP's
		# command line (Debian has no wp-cli).
		HTTP_HOST=wordpress.test php -d display_errors=stderr \
			-r '
			$_SERVER["HTTP_HOST"] = "wordpress.test";
			define("WP_INSTALLING", true);
			require $argv[1] . "/wordpress/wp-load.php";
			require_once ABSPATH . "wp-admin/includes/upgrade.php";
			wp_install("Python notes", "docs", "docs@example.org", true,
				"", "docs-password");
			$posts = json_decode(file_get_contents($argv[1] .
				"/posts.json"), true);
			foreach ($posts as $p) {
				$cat = wp_create_category($p["category"]);
				wp_insert_post(array("post_title" => $p["title"],
					"post_content" => $p["content"],
					"post_status" => "publish",
					"post_type" => $p["type"],
					"post_date" => $p["date"],
					"post_author" => 1,
					"post_category" => array($cat),
					"tags_input" => $p["tags"]));
			}' "$dir" >"$dir/wp-install.log" 2>&1 || return 1
	fi
	mkdir -p "$dir/sessions"
	local user=
	[ "$(id -u)" -eq 0 ] && user="user = root"
	cat >"$dir/php-fpm.conf" <<-EOF
	[global]
	pid = $dir/php-fpm.pid
	error_log = $dir/php-fpm.log
	daemonize = yes
	[wordpress]
	$user
	listen = $dir/php-fpm.sock
	listen.mode = 0666
	pm = static
	pm.max_children = 4
	php_admin_value[session.save_path] = $dir/sessions
	php_admin_value[error_log] = $dir/php-errors.log
	EOF
	php-fpm8.2 -R -y "$dir/php-fpm.conf" -p "$dir" || return 1
	write_nginx <<-EOF
	    root $dir/wordpress;
	    index index.php;
	    location / { try_files \$uri \$uri/ /index.php?\$args; }
	    location ~ \.php\$ {
	      include /etc/nginx/fastcgi_params;
	      fastcgi_param SCRIPT_FILENAME \$document_root\$fastcgi_script_name;
	      fastcgi_param HTTP_HOST wordpress.test;
	      fastcgi_pass unix:$dir/php-fpm.sock;
	    }
	EOF
	start_nginx || return 1
	front=/
}

wait_for_socket()
{
	local i
	for i in $(seq 200); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

front_answers()
{
	[ "$(curl -sL -o /dev/null -w '%{http_code}' \
		"http://127.0.0.1:$port$front")" = 200 ]
}

# stop_pid FILE [GROUP] — end the process of a pid file (its whole
# process group with GROUP) and wait until it is gone.
stop_pid()
{
	local f=$1 pid i
	[ -f "$f" ] || return 0
	pid=$(cat "$f")
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		if [ -n "${2:-}" ]; then
			kill -TERM -- "-$pid" 2>/dev/null
		else
			kill -TERM "$pid" 2>/dev/null
		fi
		for i in $(seq 100); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.05
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill -KILL ${2:+--} ${2:+-}"$pid" 2>/dev/null
		fi
	fi
	rm -f "$f"
}

stop_all()
{
	stop_pid "$dir/nginx.pid"
	stop_pid "$dir/php-fpm.pid"
	stop_pid "$dir/fcgiwrap.pid" group
	stop_pid "$dir/fossil.pid" group
	stop_pid "$dir/mariadbd.pid" group
	rm -f "$dir/php-fpm.sock" "$dir/fcgiwrap.sock" "$dir/mysql.sock"
}

case $action in
start)
	[ -n "$port" ] || usage
	mkdir -p "$dir" && dir=$(cd "$dir" && pwd) || exit 1
	case $app in
	dokuwiki | cgit | fossil | wordpress) ;;
	*) usage ;;
	esac
	front=/
	if ! "start_$app"; then
		echo "apps.sh: $app did not start (logs in $dir)" >&2
		stop_all
		exit 1
	fi
	for i in $(seq 400); do
		front_answers && break
		sleep 0.05
	done
	if ! front_answers; then
		echo "apps.sh: $app does not answer http://127.0.0.1:$port$front (logs in $dir)" >&2
		stop_all
		exit 1
	fi
	echo "$front"
	;;
stop)
	[ -d "$dir" ] || exit 0
	dir=$(cd "$dir" && pwd)
	stop_all
	;;
*)
	usage
	;;
esac
