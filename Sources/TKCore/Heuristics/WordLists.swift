// The built-in word and phrase tables of the quick heuristics. One entry a line;
// `phrase => a | b` gives replacements. Lines starting with `#` are comments.
// Sources: the lists of write-good, proselint and Vale's styles (what they flag), plain-language
// guides (wordy phrases), and common AI-writing tells.

enum WordLists {
    /// Forms of "to be" that start a passive construction.
    static let beVerbs = "am are is was were be been being 's ’s 're ’re isn't aren't wasn't weren't"

    /// Past participles that do not end in -ed.
    static let irregularParticiples = """
    arisen awoken beaten bitten bled blown bought bound bred broken brought built burnt burst cast caught \
    chosen clung crept cut dealt done drawn dreamt driven drunk dug eaten fallen fed felt fled flung flown \
    forbidden forecast foreseen foretold forgiven forgotten forsaken fought found frozen given gotten ground \
    grown heard held hidden hit hung hurt kept knelt known laid leapt learnt led left lent lit lost made \
    meant met mistaken mown overcome overdone overlooked overtaken overthrown paid proven put read rid ridden \
    risen rung said sawn seen sent sewn shaken shaven shed shorn shot shown shrunk shut slain slept slid slit \
    slung smitten sold sought sown sped spent spilt spit split spoken spread sprung spun stolen stood struck \
    strung stuck stung stunk sung sunk swept sworn swollen swum swung taken taught thought thrown thrust told \
    torn trodden understood undertaken undone upheld upset withdrawn withheld withstood woken won worn woven \
    wound written wrung freed agreed decreed guaranteed refereed
    """

    /// Words ending in -ed that are not past participles.
    static let edExceptions = """
    bed bled bred embed fed fled led red shed shred sled wed naked wicked sacred rugged ragged jagged crooked \
    beloved kindred hatred hundred wretched dogged learned aged indeed need feed seed speed steed weed reed \
    heed greed breed creed deed bleed proceed exceed succeed tweed screed ted fred ned jed
    """

    /// Participles mostly used as adjectives after "to be" (flagged only when "by" follows).
    static let adjectivalParticiples = """
    interested tired excited bored worried scared married pleased surprised amazed concerned confused \
    delighted disappointed embarrassed exhausted frightened involved located supposed qualified determined \
    dedicated satisfied relaxed annoyed terrified thrilled stressed depressed ashamed acquainted accustomed \
    convinced prepared related obsessed fascinated impressed overwhelmed shocked stunned puzzled horrified \
    devoted committed engaged retired divorced born gone lost finished closed crowded complicated \
    experienced skilled talented limited unlimited advanced detailed balanced sophisticated distinguished \
    educated civilized entitled based tied drunk sorted done aligned armed animated astonished \
    bewildered blessed broke confined contained curved disabled disgusted dressed equipped exposed \
    fed frustrated gifted hooked injured isolated jaded loaded mixed motivated naked outraged paralyzed \
    perplexed pissed pleased relieved renowned reserved rested scattered sealed settled shaped shared \
    spoiled startled stuffed suited tanned tinted troubled unmarried unemployed unexpected united \
    unrelated unsupported unused upset valued wasted well-known worn wounded
    """

    /// Words that may stand between the be-verb and the participle.
    static let passiveAdverbs = "not never also already often always just still even now then thus sometimes all both n't"

    /// Words ending in -ly that are not adverbs (or are adverbs nobody wants flagged).
    static let lyExceptions = """
    only early family supply reply apply comply imply multiply rely ply fly belly bully jelly holy ugly silly \
    lonely lovely friendly unfriendly likely unlikely daily weekly monthly yearly hourly nightly quarterly \
    elderly costly deadly lively orderly disorderly jolly curly chilly hilly july italy ally rally tally dally \
    sully gully folly lily holly melancholy anomaly assembly monopoly homily bubbly sly wily butterfly \
    dragonfly firefly gadfly housefly underbelly unruly burly surly oily woolly prickly wobbly crinkly sickly \
    ghostly beastly brotherly sisterly cowardly heavenly leisurely manly masterly motherly fatherly \
    neighborly neighbourly portly scholarly shapely stately timely untimely ungainly unseemly unsightly \
    wrinkly bodily comely deathly homely lowly measly poly doily smelly gnarly pearly kindly earthly \
    worldly otherworldly godly ungodly saintly princely queenly kingly courtly heavenly niggardly \
    miserly sprightly steely sparkly squiggly wiggly giggly jiggly bristly grisly grizzly gristly \
    crumbly knobbly nubbly pimply ply reply rely anomaly rely dolly golly molly polly sally billy willy \
    emily kelly shelly beverly hillbilly filly chilly frilly hilly lily philly tilly dilly lolly trolley \
    nearly hardly
    """

    /// Intensifiers and weasel words (category weasel). Not flagged inside quoted dialogue.
    static let weasel = """
    very
    really
    extremely
    quite
    fairly
    totally
    completely => 
    absolutely
    incredibly
    truly
    literally
    basically
    actually
    definitely
    highly
    awfully
    terribly
    exceedingly
    remarkably
    clearly
    obviously
    surprisingly
    interestingly
    virtually
    essentially
    extraordinarily
    enormously
    hugely
    massively
    insanely
    utterly
    pretty much
    pretty good
    pretty sure
    pretty well
    pretty bad
    pretty big
    pretty hard
    pretty easy
    pretty nice
    pretty close
    pretty clear
    pretty cool
    some people say
    many people say
    people say
    many people believe
    experts say
    experts agree
    studies show
    research shows
    it is said
    it has been said
    it is believed
    it is widely believed
    it is thought
    some would say
    critics say
    very good => excellent | great
    very big => huge | enormous
    very large => huge | vast
    very small => tiny
    very important => essential | crucial
    very tired => exhausted
    very happy => delighted | thrilled
    very sad => miserable
    very bad => terrible | awful
    very hungry => starving
    very old => ancient
    very cold => freezing
    very hot => scorching
    very quiet => silent
    very angry => furious
    very scared => terrified
    very afraid => terrified
    very beautiful => gorgeous | stunning
    very pretty => beautiful
    very ugly => hideous
    very easy => effortless | simple
    very hard => difficult
    very difficult => arduous | hard
    very smart => brilliant
    very loud => deafening
    very many => numerous
    very often => frequently
    very sure => certain
    very interesting => fascinating
    very rich => wealthy
    very strong => powerful
    very weak => feeble
    very dirty => filthy
    very clean => spotless
    very funny => hilarious
    very boring => tedious
    very fast => rapid | swift
    very slow => sluggish
    very clear => obvious
    very tiny => minuscule
    very wet => soaked
    very dry => parched
    very bright => dazzling
    very dark => pitch-black
    very thin => gaunt | skinny
    very fat => obese
    very short => brief
    very long => lengthy
    very unique => unique
    """

    /// Phrases that look like weasel words but are not (matched first, never flagged).
    static let weaselStops = """
    very well
    the very
    this very
    that very
    his very
    her very
    its very
    their very
    my very
    your very
    our very
    at the very
    quite a few
    quite a bit
    not quite
    rather than
    would rather
    or rather
    actually happened
    """

    /// Hedges (category hedge). Not flagged inside quoted dialogue.
    static let hedges = """
    i think
    i believe
    i feel that
    i guess
    i suppose
    i reckon
    in my opinion
    in my humble opinion
    in my view
    perhaps
    maybe
    possibly
    probably
    sort of
    kind of
    it seems
    it seems that
    it would seem
    it appears
    it appears that
    seems to
    seem to
    appears to
    appear to
    seemingly
    apparently
    to some extent
    to a certain extent
    to some degree
    to a certain degree
    more or less
    in a sense
    in some sense
    arguably
    it could be argued
    i would argue
    i would say
    if you will
    presumably
    supposedly
    conceivably
    somewhat
    i'm not sure
    i am not sure
    not entirely sure
    as far as i know
    i may be wrong
    i might be wrong
    a little bit
    could possibly
    might possibly
    may possibly
    """

    /// Words before "kind of" / "sort of" that make it a noun phrase ("a kind of fruit"), not a hedge.
    static let kindOfNounDeterminers = """
    a an the this that what some any every one same new different which each no another only first \
    last right wrong certain particular whatever all these those other such its his her their our your my
    """

    /// Clichés (category cliche).
    static let cliches = """
    a chip off the old block
    a clean slate
    a dark and stormy night
    a far cry
    a fine kettle of fish
    a loose cannon
    a penny saved is a penny earned
    a tough row to hoe
    a word to the wise
    ace in the hole
    acid test
    add insult to injury
    against all odds
    air your dirty laundry
    all fun and games
    all in a day's work
    all hell broke loose
    all thumbs
    all your eggs in one basket
    all's fair in love and war
    all's well that ends well
    almighty dollar
    an axe to grind
    another day, another dollar
    armed to the teeth
    as luck would have it
    as old as time
    as the crow flies
    at loose ends
    at my wits' end
    at my wit's end
    at the drop of a hat
    at the end of the day
    avoid like the plague
    babe in the woods
    back against the wall
    back in the saddle
    back to square one
    back to the drawing board
    bad to the bone
    badge of honor
    ballpark figure
    baptism by fire
    barking up the wrong tree
    bat out of hell
    be-all and end-all
    beat a dead horse
    beat around the bush
    been there, done that
    beggars can't be choosers
    behind the eight ball
    bend over backwards
    benefit of the doubt
    bent out of shape
    best thing since sliced bread
    best of both worlds
    bet your bottom dollar
    better late than never
    better safe than sorry
    between a rock and a hard place
    beyond the pale
    bide your time
    big fish in a small pond
    bird's eye view
    birds of a feather
    bite the bullet
    bite the dust
    bit off more than
    bite off more than you can chew
    blast from the past
    blessing in disguise
    blind as a bat
    blood is thicker than water
    blood ran cold
    blood, sweat and tears
    blow off steam
    blow your own horn
    boils down to
    bolt from the blue
    bone to pick
    bored to tears
    bored stiff
    bottomless pit
    boys will be boys
    bright and early
    bring home the bacon
    brings home the bacon
    broken record
    bull in a china shop
    burn the midnight oil
    burning question
    burning the candle at both ends
    burst your bubble
    bury the hatchet
    busy as a bee
    butterflies in my stomach
    butterflies in her stomach
    butterflies in his stomach
    by hook or by crook
    call a spade a spade
    calm before the storm
    can of worms
    can't hold a candle to
    cat got your tongue
    caught red-handed
    checkered past
    chomping at the bit
    champing at the bit
    clear as a bell
    clear as mud
    close to the vest
    cock and bull story
    cold shoulder
    come hell or high water
    cool as a cucumber
    cool, calm and collected
    cost an arm and a leg
    count your blessings
    crack of dawn
    creature comforts
    cross that bridge when you come to it
    cry over spilt milk
    cry over spilled milk
    crystal clear
    curiosity killed the cat
    cut and dried
    cut to the chase
    cute as a button
    dead as a doornail
    dead of night
    deafening silence
    devil is in the details
    dime a dozen
    dog eat dog
    dog-eat-dog
    don't count your chickens
    don't rock the boat
    double-edged sword
    down and out
    down in the dumps
    down to earth
    down-to-earth
    draw the line
    dressed to kill
    dressed to the nines
    drives me up the wall
    dull as dishwater
    dyed in the wool
    ear to the ground
    early bird catches the worm
    easier said than done
    easy as pie
    eat your words
    eleventh hour
    every cloud has a silver lining
    every fiber of my being
    everything but the kitchen sink
    eye for an eye
    face the music
    fall by the wayside
    fan the flames
    few and far between
    fifteen minutes of fame
    fish out of water
    fit as a fiddle
    fit the bill
    flash in the pan
    flat as a pancake
    flog a dead horse
    fly by night
    follow your heart
    for all intents and purposes
    for what it's worth
    force of nature
    force to be reckoned with
    forgive and forget
    free as a bird
    fresh as a daisy
    full steam ahead
    get a kick out of
    get the ball rolling
    get to the bottom of
    get your feet wet
    gilding the lily
    give it 110 percent
    go against the grain
    go for broke
    go the extra mile
    go with the flow
    goes without saying
    good as gold
    green with envy
    green-eyed monster
    grist for the mill
    hand in glove
    happy as a clam
    head over heels
    hear a pin drop
    heard it through the grapevine
    heart of gold
    heart skipped a beat
    heart pounding in her chest
    heart pounding in his chest
    hem and haw
    high and dry
    high and mighty
    hit the ground running
    hit the nail on the head
    hold your horses
    holy grail
    hot under the collar
    icing on the cake
    if the shoe fits
    in a nutshell
    in hot water
    in the blink of an eye
    in the nick of time
    in the same boat
    in the thick of it
    it goes without saying
    it is what it is
    it's a small world
    it's only a matter of time
    ivory tower
    jack of all trades
    joined at the hip
    judge a book by its cover
    jump on the bandwagon
    jump the gun
    jump to conclusions
    keep an eye on
    keep your chin up
    keep your fingers crossed
    kick the bucket
    kill two birds with one stone
    kiss of death
    knock on wood
    knock your socks off
    know the ropes
    labor of love
    lap of luxury
    last but not least
    last-ditch effort
    lay down the law
    leaps and bounds
    learning curve
    let sleeping dogs lie
    let the cat out of the bag
    let your hair down
    level playing field
    light at the end of the tunnel
    lighter than air
    like clockwork
    like a kid in a candy store
    like there's no tomorrow
    lion's share
    little did i know
    little did he know
    little did she know
    little did they know
    little did we know
    live and learn
    long and short of it
    look before you leap
    loose cannon
    low-hanging fruit
    luck of the draw
    make hay while the sun shines
    man's best friend
    mark my words
    method to my madness
    moment of truth
    more than meets the eye
    move the needle
    movers and shakers
    needle in a haystack
    needless to say
    neither here nor there
    never say never
    nip it in the bud
    no pain, no gain
    no stone unturned
    no time like the present
    nose to the grindstone
    not rocket science
    nothing to sneeze at
    off the beaten path
    off the top of my head
    old as the hills
    on cloud nine
    on pins and needles
    on the ball
    on the fence
    on the same page
    on thin ice
    once in a blue moon
    one in a million
    only time will tell
    open a can of worms
    out of the blue
    out of the frying pan into the fire
    out of the woods
    out on a limb
    over the moon
    over the hill
    par for the course
    paradigm shift
    part and parcel
    pass the buck
    perfect storm
    piece of cake
    plain as day
    play it by ear
    playing with fire
    plenty of fish in the sea
    pot calling the kettle black
    pretty as a picture
    pull out all the stops
    push the envelope
    pushing the envelope
    put the cart before the horse
    put your best foot forward
    quiet as a mouse
    rags to riches
    raining cats and dogs
    raise the bar
    rat race
    read between the lines
    red herring
    reinvent the wheel
    ring a bell
    rings a bell
    rise and shine
    rock the boat
    rule of thumb
    run of the mill
    run-of-the-mill
    sad but true
    salt of the earth
    scared to death
    scared stiff
    second to none
    see eye to eye
    sent a shiver down
    sent shivers down
    shiver down her spine
    shiver down his spine
    shivers down my spine
    shot in the dark
    sick as a dog
    sigh of relief
    silver lining
    sink or swim
    sleep like a log
    slept like a log
    smart as a whip
    sneaking suspicion
    spill the beans
    spilled the beans
    spread like wildfire
    square peg in a round hole
    stand the test of time
    stands the test of time
    stood the test of time
    start from scratch
    stick out like a sore thumb
    sticks out like a sore thumb
    stood out like a sore thumb
    straight from the horse's mouth
    strong as an ox
    stubborn as a mule
    take it with a grain of salt
    take the bull by the horns
    take the plunge
    takes two to tango
    the ball is in your court
    the bottom line
    the elephant in the room
    the last straw
    the more the merrier
    the new normal
    the rest is history
    the whole nine yards
    the writing on the wall
    think outside the box
    thinking outside the box
    think outside of the box
    this day and age
    through thick and thin
    throw in the towel
    throw caution to the wind
    tie the knot
    time and time again
    time is of the essence
    time flies
    time stood still
    tip of the iceberg
    to make a long story short
    long story short
    toe the line
    tongue in cheek
    too good to be true
    touch base
    trial and error
    trials and tribulations
    tried and true
    tried and tested
    trip down memory lane
    twist of fate
    two peas in a pod
    under the weather
    uphill battle
    until the cows come home
    walk in the park
    water under the bridge
    weather the storm
    wet behind the ears
    what goes around comes around
    when all is said and done
    when it rains, it pours
    when push comes to shove
    white as a sheet
    whole new ball game
    wild goose chase
    win-win
    win-win situation
    wolf in sheep's clothing
    worth its weight in gold
    writing on the wall
    you can't judge a book by its cover
    """

    /// Phrases that sound machine-written (category ai_cliche).
    static let aiCliches = """
    delve => look at | explore
    delves => looks at | explores
    delved => looked at | explored
    delving => looking at | exploring
    delve into => explore | look at
    delves into => explores | looks at
    delving into => exploring | looking at
    delve deeper => look closer
    tapestry
    tapestries
    rich tapestry
    vibrant tapestry
    intricate tapestry
    robust => strong | reliable
    leverage => use
    leverages => uses
    leveraged => used
    leveraging => using
    seamless => smooth
    seamlessly => smoothly
    navigate the complexities
    navigating the complexities
    navigate the complexities of
    navigate the intricacies
    navigating the intricacies
    navigate the landscape
    navigating the landscape
    navigate the ever-changing
    in today's fast-paced world
    in today's fast-paced
    in today's digital age
    in today's digital world
    in today's rapidly evolving
    in today's ever-changing
    in today's world
    in the ever-evolving
    ever-evolving => changing
    ever-changing landscape
    rapidly evolving landscape
    digital landscape
    business landscape
    competitive landscape
    political landscape
    tech landscape
    technology landscape
    technological landscape
    evolving landscape
    changing landscape
    shifting landscape
    media landscape
    regulatory landscape
    economic landscape
    corporate landscape
    marketing landscape
    startup landscape
    ai landscape
    global landscape
    industry landscape
    educational landscape
    healthcare landscape
    financial landscape
    security landscape
    threat landscape
    investment landscape
    software landscape
    data landscape
    complex landscape
    dynamic landscape
    current landscape
    modern landscape
    landscape of modern
    it is important to note
    it is important to note that
    it's important to note
    it's important to note that
    it is worth noting
    it is worth noting that
    it's worth noting
    it's worth noting that
    it is crucial to note
    it is essential to note
    a testament to
    stands as a testament
    serves as a testament
    unlock the power
    unlock the power of
    unlock the potential
    unlock the full potential
    unlock your potential
    unleash the power
    unleash the potential
    unleash your potential
    harness the power
    harness the power of
    harness the potential
    embark on a journey
    embarking on a journey
    embark on
    embarks on
    embarking on
    journey of self-discovery
    in the realm of => in
    realm of
    plays a crucial role
    play a crucial role
    plays a pivotal role
    play a pivotal role
    plays a vital role
    play a vital role
    pivotal => key | central
    game-changer
    game-changing
    cutting-edge => new | latest
    elevate => raise | improve
    elevates => raises | improves
    elevating => raising | improving
    empower => let | help
    empowers => lets | helps
    empowering
    foster a
    foster an
    foster the
    fosters
    fostering a
    fostering an
    fostering the
    holistic => whole | complete
    holistically
    synergy
    synergies
    synergistic
    multifaceted => complex
    intricacies => details
    underscore => stress | show
    underscores => stresses | shows
    underscoring
    underscored
    showcase => show
    showcases => shows
    showcasing => showing
    meticulous => careful
    meticulously => carefully
    commendable
    groundbreaking => new
    transformative
    invaluable => valuable
    resonate with
    resonates with
    resonated with
    at its core
    dive into => look at
    let's dive in
    let's dive into
    let's delve into
    let's explore
    deep dive => close look
    dive deep
    treasure trove
    a beacon of
    beacon of hope
    symphony of
    labyrinth of
    labyrinthine
    look no further
    bespoke => custom
    myriad => many
    a myriad of => many
    plethora => many
    a plethora of => many
    revolutionize => change
    revolutionizes => changes
    revolutionizing => changing
    revolutionise => change
    unparalleled
    unwavering => steady
    boasts => has
    nestled
    effortlessly
    streamline => simplify
    streamlines => simplifies
    streamlining => simplifying
    at the forefront
    in an era of
    in an era where
    in the digital age
    key takeaways
    the intersection of
    bustling metropolis
    ever-shifting
    a rich history
    a rich tradition
    stark reminder
    a stark reminder
    serves as a reminder
    in conclusion
    to sum up
    """

    /// Stock openings (category generic_opening), flagged at the start of a document or paragraph.
    static let genericOpenings = """
    in today's world
    in today's fast-paced world
    in today's fast-paced
    in today's society
    in today's digital age
    in today's digital world
    in today's modern world
    in today's rapidly changing world
    in today's ever-changing world
    in this day and age
    since the dawn of time
    since the dawn of
    since the beginning of time
    since time immemorial
    from time immemorial
    from the dawn of time
    ever since the dawn of
    throughout history
    throughout human history
    throughout the ages
    throughout the course of history
    all throughout history
    in the modern era
    in the modern world
    in our modern world
    in our modern society
    in modern society
    in recent years
    nowadays
    in the digital age
    in the age of
    in an increasingly
    in a world where
    we live in a world
    we live in a time
    have you ever wondered
    imagine a world where
    picture this
    let's face it
    as we all know
    it goes without saying
    webster's dictionary defines
    the dictionary defines
    according to the dictionary
    humans have always
    mankind has always
    people have always
    technology has changed the way
    """

    /// Wordy phrases and their plain replacements (category wordy).
    static let wordy = """
    in order to => to
    in order for => for
    utilize => use
    utilizes => uses
    utilized => used
    utilizing => using
    utilise => use
    utilises => uses
    utilised => used
    utilising => using
    utilization => use
    due to the fact that => because
    owing to the fact that => because
    in light of the fact that => because
    on the grounds that => because
    in view of the fact that => because
    despite the fact that => although
    in spite of the fact that => although
    regardless of the fact that => although
    the fact that => that
    at this point in time => now
    at the present time => now
    at this moment in time => now
    at the present moment => now
    in the event that => if
    in the event of => if
    for the purpose of => for | to
    with regard to => about
    with regards to => about
    in regard to => about
    in regards to => about
    with respect to => about
    with reference to => about
    in relation to => about
    a large number of => many
    a great number of => many
    a large amount of => much
    a small number of => a few
    the majority of => most
    the vast majority of => most
    a majority of => most
    prior to => before
    subsequent to => after
    in close proximity to => near
    in close proximity => near
    close proximity => near
    is able to => can
    are able to => can
    was able to => could
    were able to => could
    has the ability to => can
    have the ability to => can
    has the capacity to => can
    make a decision => decide
    made a decision => decided
    take into consideration => consider
    give consideration to => consider
    in the near future => soon
    in the not too distant future => soon
    on a daily basis => daily
    on a weekly basis => weekly
    on a monthly basis => monthly
    on a regular basis => regularly
    on an annual basis => yearly
    each and every => each | every
    first and foremost => first
    basic fundamentals => fundamentals
    end result => result
    final outcome => outcome
    past history => history
    future plans => plans
    free gift => gift
    advance planning => planning
    advance warning => warning
    completely eliminate => eliminate
    absolutely essential => essential
    in the process of => 
    until such time as => until
    commence => begin | start
    commenced => began | started
    commences => begins | starts
    facilitate => help | ease
    facilitates => helps | eases
    endeavor => try
    endeavour => try
    ascertain => find out | learn
    in excess of => more than
    whether or not => whether
    along the lines of => like
    as a means of => to
    as a means to => to
    at all times => always
    by means of => by
    have a tendency to => tend to
    has a tendency to => tends to
    it is possible that => may | might
    with the exception of => except
    for all intents and purposes => in effect
    in the amount of => for
    period of time => period | time
    reason why => reason
    the reason why is because => because
    new innovation => innovation
    join together => join
    plan ahead => plan
    revert back => revert
    return back => return
    repeat again => repeat
    atm machine => ATM
    pin number => PIN
    as to whether => whether
    in a timely manner => promptly
    personal opinion => opinion
    during the course of => during
    in the course of => during
    in the field of => in
    is indicative of => shows
    are indicative of => show
    make an attempt => try
    made an attempt => tried
    conduct an investigation => investigate
    provide assistance => help
    in the absence of => without
    an adequate number of => enough
    a sufficient number of => enough
    sufficient number of => enough
    approximately => about
    in terms of => about
    at the end of the day => finally
    a total of => 
    each individual => each
    still remains => remains
    exactly the same => the same
    actual fact => fact
    in actual fact => in fact
    mutual cooperation => cooperation
    general consensus => consensus
    consensus of opinion => consensus
    added bonus => bonus
    brief summary => summary
    unexpected surprise => surprise
    true fact => fact
    totally unique => unique
    very unique => unique
    most unique => unique
    collaborate together => collaborate
    merge together => merge
    combine together => combine
    connect together => connect
    gather together => gather
    refer back => refer
    continue on => continue
    ask the question => ask
    put forward a proposal => propose
    came to the conclusion => concluded
    come to the conclusion => conclude
    draw to a close => end
    is in need of => needs
    are in need of => need
    in the vicinity of => near
    on the occasion of => on
    with the result that => so
    so as to => to
    in a manner that => so that
    in such a manner as to => to
    it is necessary that => must
    there is a need for => we need
    serves to => 
    """

    /// Words that may legitimately repeat ("had had", "that that").
    static let repeatOK = "had that is do bye ha no yeah well very blah tut night knock chop pom there now so her"

    /// Abbreviations whose period never ends a sentence (titles, "e.g.", "cf.").
    static let abbreviations = """
    mr mrs ms mx dr prof st lt capt sgt col gen gov rev hon messrs mme mlle e.g i.e cf vs viz fig figs vol vols \
    pp approx ca n.b
    """

    /// Abbreviations whose period ends a sentence only when a capital letter follows ("… etc. The next").
    static let abbreviationsMaybeEnd = """
    etc inc ltd corp co jr sr a.m p.m u.s u.k u.n e.u ph.d b.a m.a b.sc m.sc d.c jan feb apr aug sept oct nov \
    dec dept ave blvd ibid al
    """
}
