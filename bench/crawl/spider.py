#!/usr/bin/python3
"""spider.py — bench/crawl's Scrapy peer: a CrawlSpider over the 8 bench
hosts (the seeds' hosts), set up as Scrapy's "Broad Crawls" guide says
for speed: high concurrency, no delay or autothrottle, no cookies,
retries or redirects, a larger reactor thread pool, the downloader-aware
priority queue, breadth-first order (DEPTH_PRIORITY 1 with FIFO queues),
nothing stored.

usage: spider.py SEEDS STATS_OUT [CONCURRENCY [PER_HOST [DELAY_S]]]

DELAY_S (default 0) is DOWNLOAD_DELAY, the least time between requests
to one host, not randomized (bench/crawl/latency.py's polite crawl).

Writes the number of responses received to STATS_OUT.
"""
import sys
from urllib.parse import urlsplit

from scrapy.crawler import CrawlerProcess
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule

def seed_urls(path):
    with open(path) as f:
        return [u.strip() for u in f if u.strip()]


class BenchSpider(CrawlSpider):
    name = "bench"

    def __init__(self, seeds, **kw):
        self.start_urls = seed_urls(seeds)
        hosts = sorted({urlsplit(u).hostname for u in self.start_urls})
        self.allowed_domains = hosts
        # The offsite middleware keeps the crawl on allowed_domains (it
        # compares host names); LinkExtractor(allow_domains=) would compare
        # host and port, and refuse every link of a site on a port.
        self.rules = (Rule(LinkExtractor(), callback="page", follow=True),)
        super().__init__(**kw)

    def page(self, response):
        return None


def main():
    seeds, stats_out = sys.argv[1], sys.argv[2]
    conc = int(sys.argv[3]) if len(sys.argv) > 3 else 64
    per_host = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    delay = float(sys.argv[5]) if len(sys.argv) > 5 else 0
    process = CrawlerProcess(settings={
        "CONCURRENT_REQUESTS": conc,
        "CONCURRENT_REQUESTS_PER_DOMAIN": per_host,
        "DOWNLOAD_DELAY": delay,
        "RANDOMIZE_DOWNLOAD_DELAY": False,
        "AUTOTHROTTLE_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "LOG_LEVEL": "WARNING",
        "TELNETCONSOLE_ENABLED": False,
        "COOKIES_ENABLED": False,
        "RETRY_ENABLED": False,
        "REDIRECT_ENABLED": False,
        "DOWNLOAD_TIMEOUT": 15,
        "REACTOR_THREADPOOL_MAXSIZE": 20,
        "SCHEDULER_PRIORITY_QUEUE":
            "scrapy.pqueues.DownloaderAwarePriorityQueue",
        "DEPTH_PRIORITY": 1,
        "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
        "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
        "DEPTH_LIMIT": 0,
        "HTTPCACHE_ENABLED": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    })
    crawler = process.create_crawler(BenchSpider)
    process.crawl(crawler, seeds=seeds)
    process.start()
    n = crawler.stats.get_value("response_received_count", 0)
    with open(stats_out, "w") as f:
        f.write("%d\n" % n)


if __name__ == "__main__":
    main()
